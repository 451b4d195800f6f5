package io.mqttgw.bench.sim.pki;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** Reads PEM blocks (certificates, PKCS#8 keys) into DER and DER into JDK objects. Stateless. */
public final class Pem {
    private Pem() {
    }

    /** The DER bytes of every {@code -----BEGIN <label>-----} block in {@code text}, in order. */
    public static List<byte[]> blocks(String text, String label) {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        List<byte[]> out = new ArrayList<>();
        int from = 0;
        while (true) {
            int b = text.indexOf(begin, from);
            if (b < 0) {
                return out;
            }
            int e = text.indexOf(end, b);
            if (e < 0) {
                throw new IllegalArgumentException("PEM block '" + label + "' has no end line");
            }
            out.add(Base64.getMimeDecoder().decode(text.substring(b + begin.length(), e)));
            from = e + end.length();
        }
    }

    public static X509Certificate certificate(byte[] der) {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an X.509 certificate", e);
        }
    }

    /** An unencrypted PKCS#8 key, EC or RSA (tried in that order). */
    public static PrivateKey privateKey(byte[] pkcs8) {
        for (String alg : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException("not an unencrypted PKCS#8 EC or RSA key");
    }
}
