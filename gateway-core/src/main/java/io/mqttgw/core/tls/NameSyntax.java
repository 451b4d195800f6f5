package io.mqttgw.core.tls;

import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralSubtree;

/**
 * Whether a dNSName, rfc822Name or iPAddress is of the syntax RFC 5280 asks, as a subjectAltName under name
 * constraints or as a constraint's base: host names in RFC 1034's preferred syntax (as RFC 1123 relaxes it), one
 * mailbox per rfc822Name, an address with a prefix mask per iPAddress constraint. {@link StrictNameConstraints}
 * refuses what this finds wrong before it matches anything. Stateless; any thread.
 */
final class NameSyntax {
    private static final int MAX_HOST_LENGTH = 253;
    private static final int MAX_LABEL_LENGTH = 63;

    private NameSyntax() {
    }

    /** Refuses a subtree that RFC 5280 forbids or that is of a name form nothing evaluates. */
    static void requireWellFormed(GeneralSubtree[] subtrees) throws CertificateException {
        if (subtrees == null) {
            return;
        }
        for (GeneralSubtree subtree : subtrees) {
            if (subtree.getMinimum().signum() != 0 || subtree.getMaximum() != null) {
                throw new CertificateParsingException("a subtree has a minimum or maximum, which RFC 5280 4.2.1.10 "
                        + "forbids");
            }
            GeneralName base = subtree.getBase();
            String problem = switch (base.getTagNo()) {
                case GeneralName.dNSName -> {
                    String host = text(base);
                    yield host.isEmpty() ? null : hostProblem(host, "the dNSName constraint " + host);
                }
                case GeneralName.rfc822Name -> mailConstraintProblem(text(base));
                case GeneralName.iPAddress -> rangeProblem(ASN1OctetString.getInstance(base.getName()).getOctets());
                case GeneralName.directoryName, GeneralName.uniformResourceIdentifier, GeneralName.otherName -> null;
                default -> "a constraint of name form " + base.getTagNo() + ", which is not evaluated";
            };
            if (problem != null) {
                throw new CertificateParsingException(problem);
            }
        }
    }

    private static String mailConstraintProblem(String constraint) {
        int at = constraint.lastIndexOf('@');
        if (at >= 0) {
            return nameProblem(GeneralName.rfc822Name, constraint);
        }
        String host = constraint.startsWith(".") ? constraint.substring(1) : constraint;
        return hostProblem(host, "the rfc822Name constraint " + constraint);
    }

    private static String rangeProblem(byte[] range) {
        if (range.length != 8 && range.length != 32) {
            return "an iPAddress constraint of " + range.length + " bytes, not an address and mask (8 or 32)";
        }
        boolean zero = false;
        for (int i = range.length / 2; i < range.length; i++) {
            for (int bit = 7; bit >= 0; bit--) {
                boolean one = (range[i] >> bit & 1) != 0;
                if (one && zero) {
                    return "an iPAddress constraint whose mask is not a prefix (CIDR)";
                }
                zero |= !one;
            }
        }
        return null;
    }

    /** Why a subjectAltName dNSName or rfc822Name is not one, or null. */
    static String nameProblem(int type, String name) {
        if (type == GeneralName.dNSName) {
            String host = name.startsWith("*.") ? name.substring(2) : name;
            return hostProblem(host, "dNSName " + name);
        }
        int at = name.indexOf('@');
        if (at <= 0 || at != name.lastIndexOf('@')) {
            return "rfc822Name " + name + " is not a mailbox (one @ after a local part)";
        }
        return hostProblem(name.substring(at + 1), "rfc822Name " + name);
    }

    /** Why {@code host} is not in RFC 1034's preferred name syntax (as RFC 1123 relaxes it), or null. */
    private static String hostProblem(String host, String what) {
        if (host.isEmpty() || host.length() > MAX_HOST_LENGTH) {
            return what + " is not a host name (empty or too long)";
        }
        for (String label : host.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > MAX_LABEL_LENGTH || label.startsWith("-") || label.endsWith("-")) {
                return what + " is not a host name (an empty, long or hyphen-edged label)";
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
                    return what + " is not a host name (the character '" + c + "')";
                }
            }
        }
        return null;
    }

    static String text(GeneralName name) {
        return name.getName().toString();
    }
}
