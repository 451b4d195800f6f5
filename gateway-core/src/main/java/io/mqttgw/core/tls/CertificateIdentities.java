package io.mqttgw.core.tls;

import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/** Reads a device identity from a verified certificate: the subject CN, or the first SAN URI or DNS name. */
public final class CertificateIdentities {
    private static final int SAN_DNS = 2;
    private static final int SAN_URI = 6;

    private final String source;

    /** @param source {@code cn}, {@code san-uri} or {@code san-dns} ({@code identity.source}) */
    public CertificateIdentities(String source) {
        this.source = source;
    }

    /** Whether the identity is the subject's common name ({@code identity.source: cn}). */
    boolean fromCommonName() {
        return "cn".equals(source);
    }

    /** The identity, or null when the certificate does not carry one of the configured kind. */
    public String identityOf(X509Certificate certificate) {
        return switch (source) {
            case "cn" -> commonName(certificate);
            case "san-uri" -> subjectAltName(certificate, SAN_URI);
            case "san-dns" -> subjectAltName(certificate, SAN_DNS);
            default -> throw new IllegalStateException("identity source " + source);
        };
    }

    static String commonName(X509Certificate certificate) {
        try {
            List<Rdn> rdns = new LdapName(certificate.getSubjectX500Principal().getName()).getRdns();
            // LdapName lists RDNs from the least significant; the CN that names the device is the most specific
            for (int i = rdns.size() - 1; i >= 0; i--) {
                // a multi-valued RDN (CN=dev-9+SERIALNUMBER=9) reports only one type; look at all its attributes
                Attribute cn = rdns.get(i).toAttributes().get("CN");
                if (cn != null) {
                    String value = String.valueOf(cn.get());
                    return value.isEmpty() ? null : value;
                }
            }
            return null;
        } catch (NamingException e) {
            return null;
        }
    }

    private static String subjectAltName(X509Certificate certificate, int type) {
        try {
            Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (names == null) {
                return null;
            }
            for (List<?> name : names) {
                if (name.size() >= 2 && name.get(0) instanceof Integer t && t == type) {
                    return String.valueOf(name.get(1));
                }
            }
            return null;
        } catch (CertificateParsingException e) {
            return null;
        }
    }
}
