package io.mqttgw.core.identity;

import java.math.BigInteger;

/**
 * What revocation of a verified chain depends on: for each certificate of the path, device first, the authority that
 * signed it and its serial. The verifier answers it with each accepted chain; the connection keeps a reference to it
 * for its life so that a CRL reload can tell which open connections it revokes. The lean verifier's cache entry is
 * itself one, so a connection of a known device costs only that reference. Immutable.
 */
public class RevocationPath {
    private final CertificateAuthority[] issuers;
    private final BigInteger[] serials;

    public RevocationPath(CertificateAuthority[] issuers, BigInteger[] serials) {
        if (issuers.length != serials.length || issuers.length == 0) {
            throw new IllegalArgumentException("one issuer per serial, at least one");
        }
        this.issuers = issuers;
        this.serials = serials;
    }

    /** Certificates in the path (the configured CA not counted). */
    public final int length() {
        return issuers.length;
    }

    /** The authority that signed the path's {@code i}-th certificate (0: the device's). */
    public final CertificateAuthority issuer(int i) {
        return issuers[i];
    }

    public final BigInteger serial(int i) {
        return serials[i];
    }

}
