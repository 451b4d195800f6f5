package io.mqttgw.core.tls;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CRLs of {@code listener.tls.crl-file}, indexed by issuer: a revoked-serial set per configured CA, so a
 * revocation lookup on a handshake is one hash lookup. Only CRLs signed by a configured CA count; others are logged
 * and ignored (they cannot revoke anything the gateway trusts). When several CRLs of one issuer are in the file the
 * one with the latest thisUpdate wins. Immutable once built; read by event loops and the metrics scrape.
 */
public final class RevocationLists {
    private static final Logger LOG = LoggerFactory.getLogger(RevocationLists.class);

    /** One issuer's current list. {@code nextUpdateMillis} is {@code Long.MAX_VALUE} when the CRL names none. */
    public record IssuerCrl(X500Principal issuer, long thisUpdateMillis, long nextUpdateMillis,
                            Set<BigInteger> revokedSerials) {
        /** Past its next-update: a newer list should exist. */
        public boolean staleAt(long nowMillis) {
            return nowMillis > nextUpdateMillis;
        }
    }

    public static final RevocationLists NONE = new RevocationLists(Map.of(), List.of());

    private final Map<X500Principal, IssuerCrl> byIssuer;
    private final List<X509CRL> crls;

    private RevocationLists(Map<X500Principal, IssuerCrl> byIssuer, List<X509CRL> crls) {
        this.byIssuer = byIssuer;
        this.crls = crls;
    }

    /** Indexes {@code crls}, keeping those whose signature verifies with a CA of {@code cas}. */
    public static RevocationLists of(Collection<X509CRL> crls, Collection<X509Certificate> cas) {
        Map<X500Principal, IssuerCrl> byIssuer = new HashMap<>();
        List<X509CRL> kept = new java.util.ArrayList<>();
        for (X509CRL crl : crls) {
            X509Certificate ca = signer(crl, cas);
            if (ca == null) {
                LOG.warn("ignoring a CRL of {}: no CA in listener.tls.ca-file signed it", crl.getIssuerX500Principal());
                continue;
            }
            IssuerCrl entry = index(crl);
            IssuerCrl previous = byIssuer.get(entry.issuer());
            if (previous == null || previous.thisUpdateMillis() < entry.thisUpdateMillis()) {
                byIssuer.put(entry.issuer(), entry);
            }
            kept.add(crl);
        }
        return new RevocationLists(Map.copyOf(byIssuer), List.copyOf(kept));
    }

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

    private static IssuerCrl index(X509CRL crl) {
        Set<BigInteger> serials = new HashSet<>();
        Set<? extends X509CRLEntry> entries = crl.getRevokedCertificates();
        if (entries != null) {
            for (X509CRLEntry e : entries) {
                serials.add(e.getSerialNumber());
            }
        }
        return new IssuerCrl(crl.getIssuerX500Principal(), crl.getThisUpdate().getTime(),
                crl.getNextUpdate() == null ? Long.MAX_VALUE : crl.getNextUpdate().getTime(), Set.copyOf(serials));
    }

    /** The current list of {@code issuer}, or null when the file has none. */
    public IssuerCrl of(X500Principal issuer) {
        return byIssuer.get(issuer);
    }

    /** Whether {@code issuer}'s list names {@code serial}. */
    public boolean revoked(X500Principal issuer, BigInteger serial) {
        IssuerCrl crl = byIssuer.get(issuer);
        return crl != null && crl.revokedSerials().contains(serial);
    }

    public Collection<IssuerCrl> all() {
        return byIssuer.values();
    }

    /** The parsed CRLs that were kept, for the JDK's PKIX revocation checker. */
    public List<X509CRL> crls() {
        return crls;
    }
}
