package io.mqttgw.core.tls;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.GeneralSubtree;
import org.bouncycastle.asn1.x509.NameConstraints;

/**
 * RFC 5280's name constraints (4.2.1.10) for dNSName, rfc822Name and iPAddress, checked strictly, in addition to the
 * JDK's validator on every chain through a CA with name constraints: the stricter answer wins. The JDK's matching is
 * laxer: it takes a constraint that is not a name ({@code .example.com}, an address without a mask), a subject
 * alternative name that is not one ({@code .example.com}, {@code a@b@example.com}) and a wildcard name under an
 * excluded subtree it covers ({@code *.example.com} against {@code bar.example.com}). Here a malformed constraint,
 * or a malformed name under one, is a refusal, and a wildcard counts as every name it covers: permitted only when
 * all are, excluded when any is. directoryName, uniformResourceIdentifier and otherName are left to the JDK, which
 * matches them; x400Address, ediPartyName and registeredID constraints, which nothing here or there evaluates, are
 * refused rather than ignored; what is a well-formed name or constraint is {@link NameSyntax}'s to say. Stateless.
 */
final class StrictNameConstraints {
    /**
     * The most comparisons of a name with a constraint one chain may cost (every name of each certificate, its
     * subject included, times the subtrees of each constraining CA above it). A device names itself once or a few
     * times and a constrained CA lists a handful of subtrees, so real chains stay far below it; a chain above it is
     * refused before any matching, so a crafted CA of thousands of subtrees (x509-limbo's nc-dos cases: 4,098 of
     * them, against one name or 2,049) cannot make each handshake cost milliseconds of an event loop.
     */
    static final int MAX_COMPARISONS = 1024;
    static final String NAME_CONSTRAINTS = "2.5.29.30";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";

    private StrictNameConstraints() {
    }

    /**
     * Null when the name constraints of {@code ca} (if any) are well-formed and of forms that are evaluated, else what
     * is wrong, as the rest of a sentence.
     */
    static String problem(X509Certificate ca) {
        try {
            NameConstraints constraints = of(ca);
            if (constraints != null) {
                int subtrees = length(constraints.getPermittedSubtrees()) + length(constraints.getExcludedSubtrees());
                if (subtrees >= MAX_COMPARISONS) {
                    // even a device of one name (its subject) would be over the bound: it could vouch for none
                    return subtrees + " subtrees, more than a chain may be compared against ("
                            + MAX_COMPARISONS + " comparisons)";
                }
                NameSyntax.requireWellFormed(constraints.getPermittedSubtrees());
                NameSyntax.requireWellFormed(constraints.getExcludedSubtrees());
            }
            return null;
        } catch (CertificateException e) {
            return e.getMessage();
        }
    }

    /**
     * Refuses a path whose name constraints RFC 5280 does not let through.
     *
     * @param path the device certificate first, then each CA up to the last one whose constraints apply (a configured
     *             root with name constraints included)
     */
    static void require(List<X509Certificate> path) throws CertificateException {
        List<NameConstraints> constraints = new ArrayList<>(path.size());
        long comparisons = 0;
        int namesBelow = 0;
        for (int i = 0; i < path.size(); i++) {
            NameConstraints c = i == 0 ? null : of(path.get(i));
            constraints.add(c);
            if (c != null) {
                comparisons += (long) namesBelow * (length(c.getPermittedSubtrees()) + length(c.getExcludedSubtrees()));
            }
            namesBelow += 1 + names(path.get(i)).size();
        }
        if (comparisons > MAX_COMPARISONS) {
            throw CertificateRefusals.nameNotAllowed("the chain's name constraints would take " + comparisons
                    + " comparisons, above the bound of " + MAX_COMPARISONS);
        }
        for (int k = 1; k < path.size(); k++) {
            NameConstraints c = constraints.get(k);
            if (c == null) {
                continue;
            }
            GeneralSubtree[] permitted = c.getPermittedSubtrees();
            GeneralSubtree[] excluded = c.getExcludedSubtrees();
            try {
                NameSyntax.requireWellFormed(permitted);
                NameSyntax.requireWellFormed(excluded);
            } catch (CertificateException e) {
                throw CertificateRefusals.malformed("malformed name constraints in "
                        + path.get(k).getSubjectX500Principal().getName() + ": " + e.getMessage());
            }
            for (int i = 0; i < k; i++) {
                X509Certificate below = path.get(i);
                // RFC 5280 6.1.3 (b): a self-issued CA inside the path is not held to the constraints
                if (i > 0 && below.getSubjectX500Principal().equals(below.getIssuerX500Principal())) {
                    continue;
                }
                for (GeneralName name : names(below)) {
                    check(name, permitted, excluded, path.get(k));
                }
            }
        }
    }

    private static void check(GeneralName name, GeneralSubtree[] permitted, GeneralSubtree[] excluded,
                              X509Certificate ca) throws CertificateException {
        int type = name.getTagNo();
        if (type != GeneralName.dNSName && type != GeneralName.rfc822Name && type != GeneralName.iPAddress) {
            return;
        }
        byte[] address = type == GeneralName.iPAddress ? ASN1OctetString.getInstance(name.getName()).getOctets()
                : null;
        String value = address != null ? "iPAddress of " + address.length + " bytes" : NameSyntax.text(name);
        String syntax = address != null
                ? address.length == 4 || address.length == 16 ? null : value + " is not an address"
                : NameSyntax.nameProblem(type, value);
        if (syntax != null) {
            throw CertificateRefusals.malformed("a subjectAltName under the name constraints of "
                    + ca.getSubjectX500Principal().getName() + ": " + syntax);
        }
        boolean constrained = false;
        boolean inside = false;
        for (GeneralSubtree subtree : permitted == null ? new GeneralSubtree[0] : permitted) {
            GeneralName base = subtree.getBase();
            if (base.getTagNo() == type) {
                constrained = true;
                inside |= matches(type, value, address, base, false);
            }
        }
        if (constrained && !inside) {
            throw CertificateRefusals.nameNotAllowed("the name " + value + " is outside the permitted subtrees of "
                    + ca.getSubjectX500Principal().getName());
        }
        for (GeneralSubtree subtree : excluded == null ? new GeneralSubtree[0] : excluded) {
            GeneralName base = subtree.getBase();
            if (base.getTagNo() == type && matches(type, value, address, base, true)) {
                throw CertificateRefusals.nameNotAllowed("the name " + value + " is in an excluded subtree of "
                        + ca.getSubjectX500Principal().getName());
            }
        }
    }

    /**
     * Whether the name is in the subtree; for an excluded subtree, whether it may be (a wildcard that covers one name
     * of it is enough).
     */
    private static boolean matches(int type, String value, byte[] address, GeneralName base, boolean excluded) {
        String constraint = type == GeneralName.iPAddress ? null : NameSyntax.text(base).toLowerCase(Locale.ROOT);
        if (type == GeneralName.dNSName) {
            String host = value.toLowerCase(Locale.ROOT);
            if (!host.startsWith("*.")) {
                return within(host, constraint);
            }
            String parent = host.substring(2);
            // *.parent covers every name one label under parent
            return within(parent, constraint) || excluded && constraint.endsWith("." + parent)
                    && constraint.indexOf('.') == constraint.length() - parent.length() - 1;
        }
        if (type == GeneralName.rfc822Name) {
            String mailbox = value;
            int at = mailbox.lastIndexOf('@');
            String host = mailbox.substring(at + 1).toLowerCase(Locale.ROOT);
            String original = NameSyntax.text(base);
            int baseAt = original.lastIndexOf('@');
            if (baseAt >= 0) {
                // a mailbox: the local part as it is, the host without case
                return mailbox.substring(0, at).equals(original.substring(0, baseAt))
                        && host.equals(constraint.substring(baseAt + 1));
            }
            return constraint.startsWith(".") ? host.endsWith(constraint) : host.equals(constraint);
        }
        byte[] range = ASN1OctetString.getInstance(base.getName()).getOctets();
        if (range.length != 2 * address.length) {
            return false;
        }
        for (int i = 0; i < address.length; i++) {
            byte mask = range[address.length + i];
            if ((address[i] & mask) != (range[i] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a host name is the constraint's or under it (the empty constraint holds every name). */
    private static boolean within(String host, String constraint) {
        return constraint.isEmpty() || host.equals(constraint) || host.endsWith("." + constraint);
    }

    private static int length(GeneralSubtree[] subtrees) {
        return subtrees == null ? 0 : subtrees.length;
    }

    private static NameConstraints of(X509Certificate certificate) throws CertificateException {
        byte[] extension = certificate.getExtensionValue(NAME_CONSTRAINTS);
        if (extension == null) {
            return null;
        }
        try {
            return NameConstraints.getInstance(ASN1OctetString.getInstance(extension).getOctets());
        } catch (RuntimeException e) {
            throw CertificateRefusals.malformed("unreadable name constraints in "
                    + certificate.getSubjectX500Principal().getName());
        }
    }

    /** The subjectAltName entries, read from their DER: the JDK's parse turns an address into text. */
    private static List<GeneralName> names(X509Certificate certificate) throws CertificateException {
        byte[] extension = certificate.getExtensionValue(SUBJECT_ALT_NAME);
        if (extension == null) {
            return List.of();
        }
        try {
            return List.of(GeneralNames.getInstance(ASN1OctetString.getInstance(extension).getOctets()).getNames());
        } catch (RuntimeException e) {
            throw CertificateRefusals.malformed("unreadable subjectAltName in "
                    + certificate.getSubjectX500Principal().getName());
        }
    }
}
