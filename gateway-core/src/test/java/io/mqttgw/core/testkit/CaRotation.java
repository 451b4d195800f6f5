package io.mqttgw.core.testkit;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import java.util.function.Consumer;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.CRLNumber;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Test PKI for CA rotations: CAs that share a subject name but not a key, devices of a chosen CA (and serial), and PEM
 * CRLs of any of them, so a CRL file can hold one list per CA. Every key is ECDSA P-256. Stateless.
 */
public final class CaRotation {
    private static final Instant NOW = Instant.now();

    private CaRotation() {
    }

    /** A self-signed CA valid from yesterday for 30 days; call twice with one subject for a rotation. */
    public static X509Bundle authority(String subject) {
        try {
            return new CertificateBuilder().ecp256().subject(subject).setIsCertificateAuthority(true)
                    .notBefore(NOW.minus(1, ChronoUnit.DAYS)).notAfter(NOW.plus(30, ChronoUnit.DAYS))
                    .buildSelfSigned();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client-auth device certificate {@code CN=<cn>} of {@code issuer} with the given serial. */
    public static X509Bundle device(String cn, X509Bundle issuer, BigInteger serial) {
        try {
            return new CertificateBuilder().ecp256().subject("CN=" + cn).serial(serial)
                    .addExtendedKeyUsageClientAuth().notBefore(NOW.minus(1, ChronoUnit.HOURS))
                    .notAfter(NOW.plus(1, ChronoUnit.DAYS)).buildIssuedBy(issuer);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A PEM CRL of {@code issuer} issued at {@code thisUpdate}, valid a week, listing {@code revoked}. */
    public static String crl(X509Bundle issuer, Instant thisUpdate, X509Bundle... revoked) {
        return crl(issuer, thisUpdate, b -> { }, revoked);
    }

    /** As {@link #crl(X509Bundle, Instant, X509Bundle...)}, with {@code extra} adding extensions to the list. */
    public static String crl(X509Bundle issuer, Instant thisUpdate, Consumer<X509v2CRLBuilder> extra,
                             X509Bundle... revoked) {
        return crl(issuer, thisUpdate, true, extra, revoked);
    }

    /** A CRL without the CRLNumber extension RFC 5280 5.2.3 requires (a v1-style list), listing {@code revoked}. */
    public static String crlWithoutNumber(X509Bundle issuer, Instant thisUpdate, X509Bundle... revoked) {
        return crl(issuer, thisUpdate, false, b -> { }, revoked);
    }

    private static String crl(X509Bundle issuer, Instant thisUpdate, boolean numbered,
                              Consumer<X509v2CRLBuilder> extra, X509Bundle... revoked) {
        try {
            X509v2CRLBuilder crl = new X509v2CRLBuilder(
                    X500Name.getInstance(issuer.getCertificate().getSubjectX500Principal().getEncoded()),
                    Date.from(thisUpdate));
            crl.setNextUpdate(Date.from(thisUpdate.plus(7, ChronoUnit.DAYS)));
            for (X509Bundle r : revoked) {
                crl.addCRLEntry(r.getCertificate().getSerialNumber(), Date.from(thisUpdate), CRLReason.keyCompromise);
            }
            if (numbered) {
                // increasing with thisUpdate, as a CA's own counter would be
                crl.addExtension(Extension.cRLNumber, false, new CRLNumber(BigInteger.valueOf(
                        thisUpdate.getEpochSecond())));
            }
            extra.accept(crl);
            byte[] der = crl.build(new JcaContentSignerBuilder("SHA256withECDSA")
                    .build(issuer.getKeyPair().getPrivate())).getEncoded();
            return "-----BEGIN X509 CRL-----\n" + Base64.getMimeEncoder(64,
                    "\n".getBytes(StandardCharsets.UTF_8)).encodeToString(der)
                    + "\n-----END X509 CRL-----\n";
        } catch (Exception e) {
            throw new IllegalStateException("cannot build the CRL", e);
        }
    }

    /** A CRL issued an hour ago. */
    public static String crl(X509Bundle issuer, X509Bundle... revoked) {
        return crl(issuer, NOW.minus(1, ChronoUnit.HOURS), revoked);
    }

    /** Writes {@code pem} (CRLs or certificates, concatenated) to {@code file} through a move, as an operator would. */
    public static Path write(Path file, String... pem) {
        try {
            Path tmp = Files.writeString(file.resolveSibling(file.getFileName() + ".tmp"), String.join("", pem));
            return Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The certificates' PEM, concatenated (a ca-file). */
    public static String pem(X509Bundle... certificates) {
        StringBuilder out = new StringBuilder();
        for (X509Bundle c : certificates) {
            out.append(c.getCertificatePEM());
        }
        return out.toString();
    }
}
