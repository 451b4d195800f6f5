package io.mqttgw.core.tls;

import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.RevocationPath;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CRLs of {@code listener.tls.crl-file}, indexed by the CA that signed them: a revoked-serial set per configured
 * {@link CertificateAuthority} (subject name and key), so a revocation lookup on a handshake is one hash lookup with
 * the authority the verifier found to have signed the certificate. Two CAs of one name (a rotation) each keep their
 * own list; a certificate is looked up in the list of its own signer only.
 *
 * <p>Only CRLs signed by a configured CA count; others are logged and ignored (they cannot revoke anything the
 * gateway trusts). A CA's list must be complete: a partitioned CRL (issuingDistributionPoint), a delta CRL
 * (deltaCRLIndicator), an indirect CRL's entry (certificateIssuer) or any other critical extension would make a
 * serial missing from it mean nothing, so such a file is refused as a configuration error rather than read as if
 * complete. When one CA has several CRLs in the file, the one with the latest thisUpdate is its list (an older one is
 * superseded, including its entries that the newer one dropped); CRLs of one CA with the same latest thisUpdate are
 * read together. Immutable once built; read by event loops and the metrics scrape.
 */
public final class RevocationLists {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationLists.class);
    private static final String ISSUING_DISTRIBUTION_POINT = "2.5.29.28";
    private static final String DELTA_CRL_INDICATOR = "2.5.29.27";
    private static final String CERTIFICATE_ISSUER = "2.5.29.29";
    private static final String CRL_NUMBER = "2.5.29.20";
    private static final int CRL_SIGN = 6;

    /** One CA's current list. {@code nextUpdateMillis} is {@code Long.MAX_VALUE} when the CRL names none. */
    public record IssuerCrl(CertificateAuthority issuer, long thisUpdateMillis, long nextUpdateMillis,
                            Set<BigInteger> revokedSerials) {
        /** Past its next-update: a newer list should exist. */
        public boolean staleAt(long nowMillis) {
            return nowMillis > nextUpdateMillis;
        }
    }

    public static final RevocationLists NONE = new RevocationLists(Map.of(), List.of());

    private final Map<CertificateAuthority, IssuerCrl> byIssuer;
    private final List<X509CRL> crls;

    private RevocationLists(Map<CertificateAuthority, IssuerCrl> byIssuer, List<X509CRL> crls) {
        this.byIssuer = byIssuer;
        this.crls = crls;
    }

    /** Indexes {@code crls}, keeping the current ones signed by a CA of {@code cas}. */
    public static RevocationLists of(Collection<X509CRL> crls, Collection<X509Certificate> cas) {
        return of(crls, cas, "listener.tls.crl-file");
    }

    /**
     * Indexes {@code crls}, keeping the current ones signed by a CA of {@code cas}.
     *
     * @param source what a configuration error names, e.g. {@code listener.tls.crl-file=/etc/mqttgw/devices.crl}
     * @throws IllegalStateException when a CRL of a configured CA is not a complete list (see the class comment)
     */
    public static RevocationLists of(Collection<X509CRL> crls, Collection<X509Certificate> cas, String source) {
        Map<CertificateAuthority, List<X509CRL>> newest = new LinkedHashMap<>();
        for (X509CRL crl : crls) {
            X509Certificate signer = signer(crl, cas);
            if (signer == null) {
                LOG.warn("ignoring a CRL of {}: no CA in listener.tls.ca-file signed it", crl.getIssuerX500Principal());
                continue;
            }
            CertificateAuthority ca = CertificateAuthority.of(signer);
            requireComplete(crl, ca, source);
            requireIssuable(crl, signer, ca, source);
            List<X509CRL> current = newest.get(ca);
            long thisUpdate = crl.getThisUpdate().getTime();
            if (current == null || current.get(0).getThisUpdate().getTime() < thisUpdate) {
                newest.put(ca, new ArrayList<>(List.of(crl)));
            } else if (current.get(0).getThisUpdate().getTime() == thisUpdate) {
                current.add(crl);
            }
        }
        Map<CertificateAuthority, IssuerCrl> byIssuer = new LinkedHashMap<>();
        List<X509CRL> kept = new ArrayList<>();
        newest.forEach((ca, list) -> {
            byIssuer.put(ca, index(ca, list));
            kept.addAll(list);
        });
        return new RevocationLists(Map.copyOf(byIssuer), List.copyOf(kept));
    }

    /** The configured CA whose key verifies {@code crl}'s signature: the name alone would mix up a rotation. */
    private static X509Certificate signer(X509CRL crl, Collection<X509Certificate> cas) {
        for (X509Certificate ca : cas) {
            if (ca.getSubjectX500Principal().equals(crl.getIssuerX500Principal())) {
                try {
                    crl.verify(ca.getPublicKey());
                    return ca;
                } catch (GeneralSecurityException e) {
                    // another CA with the same name (a rotation) may have signed it
                }
            }
        }
        return null;
    }

    private static void requireComplete(X509CRL crl, CertificateAuthority ca, String source) {
        Set<String> all = new HashSet<>();
        if (crl.getCriticalExtensionOIDs() != null) {
            all.addAll(crl.getCriticalExtensionOIDs());
        }
        if (crl.getNonCriticalExtensionOIDs() != null) {
            all.addAll(crl.getNonCriticalExtensionOIDs());
        }
        String fix = "; put one complete CRL per CA in the file (openssl ca -gencrl makes one), the gateway does "
                + "not combine partial lists";
        if (all.contains(DELTA_CRL_INDICATOR)) {
            throw new IllegalStateException(source + ": the CRL of " + ca + " is a delta CRL (deltaCRLIndicator): "
                    + "it lists only the changes since a base CRL" + fix);
        }
        if (all.contains(ISSUING_DISTRIBUTION_POINT)) {
            throw new IllegalStateException(source + ": the CRL of " + ca + " is a partitioned or indirect CRL "
                    + "(issuingDistributionPoint): it covers only part of the CA's certificates" + fix);
        }
        Set<String> critical = crl.getCriticalExtensionOIDs();
        if (critical != null && !critical.isEmpty()) {
            throw new IllegalStateException(source + ": the CRL of " + ca + " has the critical extension "
                    + critical.iterator().next() + ", which the gateway does not evaluate" + fix);
        }
        Set<? extends X509CRLEntry> entries = crl.getRevokedCertificates();
        if (entries != null) {
            for (X509CRLEntry e : entries) {
                Set<String> entryCritical = e.getCriticalExtensionOIDs();
                if (entryCritical != null && !entryCritical.isEmpty() || e.getCertificateIssuer() != null
                        || e.getNonCriticalExtensionOIDs() != null
                        && e.getNonCriticalExtensionOIDs().contains(CERTIFICATE_ISSUER)) {
                    throw new IllegalStateException(source + ": the CRL of " + ca + " revokes serial "
                            + e.getSerialNumber().toString(16) + " with an entry extension the gateway does not "
                            + "evaluate (a certificate issuer of an indirect CRL, or a critical one)" + fix);
                }
            }
        }
    }

    /**
     * Refuses a CRL its CA may not issue, or one RFC 5280 does not let a CA issue: a CA whose key usage leaves out
     * cRLSign has said its key signs no CRL (5.2 / 4.2.1.3), so a list signed with it is not its list; and a CRL
     * without a CRLNumber (5.2.3: conforming CRL issuers MUST include it) comes from a tool set up for v1 lists, whose
     * order nobody can tell apart. Both are configuration errors rather than lists read or skipped quietly: reading
     * one would take revocations from a key not meant to give them, skipping it would let revoked devices in.
     */
    private static void requireIssuable(X509CRL crl, X509Certificate signer, CertificateAuthority ca, String source) {
        boolean[] usage = CertificatePolicy.keyUsage(signer);
        if (usage != null && (usage.length <= CRL_SIGN || !usage[CRL_SIGN])) {
            throw new IllegalStateException(source + ": a CRL is signed by " + ca + ", whose key usage in "
                    + "listener.tls.ca-file lacks cRLSign, so its key may not sign CRLs; have the CA that may sign "
                    + "CRLs issue them, or reissue the CA with cRLSign");
        }
        Set<String> nonCritical = crl.getNonCriticalExtensionOIDs();
        if (nonCritical == null || !nonCritical.contains(CRL_NUMBER)) {
            throw new IllegalStateException(source + ": the CRL of " + ca + " (this update " + crl.getThisUpdate()
                    .toInstant() + ") has no CRLNumber extension, which RFC 5280 5.2.3 requires of every CRL; issue "
                    + "it with one (openssl ca -gencrl numbers CRLs when openssl.cnf names a crlnumber file)");
        }
    }

    private static IssuerCrl index(CertificateAuthority ca, List<X509CRL> crls) {
        Set<BigInteger> serials = new HashSet<>();
        long nextUpdate = Long.MAX_VALUE;
        for (X509CRL crl : crls) {
            Set<? extends X509CRLEntry> entries = crl.getRevokedCertificates();
            if (entries != null) {
                for (X509CRLEntry e : entries) {
                    serials.add(e.getSerialNumber());
                }
            }
            if (crl.getNextUpdate() != null) {
                nextUpdate = Math.min(nextUpdate, crl.getNextUpdate().getTime());
            }
        }
        return new IssuerCrl(ca, crls.get(0).getThisUpdate().getTime(), nextUpdate, Set.copyOf(serials));
    }

    /** The current list of {@code issuer}, or null when the file has none. */
    public IssuerCrl of(CertificateAuthority issuer) {
        return byIssuer.get(issuer);
    }

    /** Whether {@code issuer}'s list names {@code serial}. One hash lookup, no allocation. */
    public boolean revoked(CertificateAuthority issuer, BigInteger serial) {
        IssuerCrl crl = byIssuer.get(issuer);
        return crl != null && crl.revokedSerials().contains(serial);
    }

    public Collection<IssuerCrl> all() {
        return byIssuer.values();
    }

    /**
     * The index of the first certificate of {@code path} that these lists revoke (each looked up in its own signer's
     * list), or -1. Allocation-free.
     */
    public int revokedLink(RevocationPath path) {
        for (int i = 0; i < path.length(); i++) {
            if (revoked(path.issuer(i), path.serial(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Whether any CA has a list here. */
    public boolean isEmpty() {
        return byIssuer.isEmpty();
    }

    /** The current CRLs, for the JDK's PKIX revocation checker (superseded ones left out, so it agrees with this). */
    public List<X509CRL> crls() {
        return crls;
    }
}
