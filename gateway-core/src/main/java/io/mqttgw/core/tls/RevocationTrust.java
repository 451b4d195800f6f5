package io.mqttgw.core.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CRL;
import java.security.cert.CertPathValidator;
import java.security.cert.CertStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.X509CertSelector;
import java.util.Collection;
import java.util.EnumSet;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * Trust in the device CAs with revocation checked against CRLs from a file, and nothing fetched over the network:
 * the gateway must not stall handshakes on a CRL distribution point or an OCSP responder. Soft-fail: an issuer with no
 * current CRL in the file does not block its devices; a device a current CRL lists is refused.
 */
final class RevocationTrust {
    private RevocationTrust() {
    }

    static TrustManagerFactory of(Path caFile, Path crlFile) throws GeneralSecurityException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
        try {
            anchors.load(null, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int i = 0;
        for (Certificate ca : read(caFile, in -> factory.generateCertificates(in))) {
            anchors.setCertificateEntry("ca-" + i++, ca);
        }
        Collection<? extends CRL> crls = read(crlFile, in -> factory.generateCRLs(in));
        PKIXBuilderParameters parameters = new PKIXBuilderParameters(anchors, new X509CertSelector());
        parameters.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
        PKIXRevocationChecker checker = (PKIXRevocationChecker) CertPathValidator.getInstance("PKIX")
                .getRevocationChecker();
        checker.setOptions(EnumSet.of(PKIXRevocationChecker.Option.PREFER_CRLS,
                PKIXRevocationChecker.Option.NO_FALLBACK, PKIXRevocationChecker.Option.SOFT_FAIL));
        parameters.addCertPathChecker(checker);
        parameters.setRevocationEnabled(true);
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(new CertPathTrustManagerParameters(parameters));
        return trust;
    }

    private interface Reader<T> {
        T read(InputStream in) throws GeneralSecurityException;
    }

    private static <T> T read(Path file, Reader<T> reader) throws GeneralSecurityException {
        try (InputStream in = Files.newInputStream(file)) {
            return reader.read(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e, e);
        }
    }
}
