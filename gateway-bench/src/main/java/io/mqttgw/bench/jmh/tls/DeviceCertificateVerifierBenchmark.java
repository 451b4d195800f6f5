package io.mqttgw.bench.jmh.tls;

import io.mqttgw.core.tls.DeviceCertificateVerifier;
import io.mqttgw.core.tls.RevocationLists;
import io.netty.handler.ssl.util.LazyX509Certificate;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One device certificate verification as a full TLS handshake does it: the JDK's PKIX validation
 * ({@code listener.tls.verifier: pkix}) against the lean verifier on a cache miss ({@code leanCold}, cache off) and on
 * a hit ({@code leanWarm}, a known device reconnecting). ECDSA P-256 CA and devices, a CRL of 1,000 revoked serials.
 * Each operation gets a fresh {@link LazyX509Certificate} over the DER, as Netty's OpenSSL engine hands the trust
 * manager, so parsing is part of the cost where a verifier needs it. The TLS crypto itself is not included. Besides
 * the wall-clock score, the {@link CpuTime} counters give thread CPU time per verification. Single-threaded state.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DeviceCertificateVerifierBenchmark {
    private static final int DEVICES = 1024;

    private byte[][] devices;
    private int next;
    private DeviceCertificateVerifier pkix;
    private DeviceCertificateVerifier leanCold;
    private DeviceCertificateVerifier leanWarm;

    @Setup
    public void setUp() throws Exception {
        Instant now = Instant.now();
        X509Bundle ca = new CertificateBuilder().ecp256().subject("CN=Bench Device CA").setIsCertificateAuthority(true)
                .notBefore(now.minus(1, ChronoUnit.DAYS)).notAfter(now.plus(30, ChronoUnit.DAYS)).buildSelfSigned();
        devices = new byte[DEVICES][];
        for (int i = 0; i < DEVICES; i++) {
            devices[i] = new CertificateBuilder().ecp256().subject("CN=dev-" + i).addExtendedKeyUsageClientAuth()
                    .notBefore(now.minus(1, ChronoUnit.HOURS)).notAfter(now.plus(1, ChronoUnit.DAYS))
                    .buildIssuedBy(ca).getCertificate().getEncoded();
        }
        X509v2CRLBuilder crl = new X509v2CRLBuilder(
                X500Name.getInstance(ca.getCertificate().getSubjectX500Principal().getEncoded()),
                Date.from(now.minus(1, ChronoUnit.HOURS)));
        crl.setNextUpdate(Date.from(now.plus(7, ChronoUnit.DAYS)));
        // the gateway refuses a CRL without its number (RFC 5280 5.2.3)
        crl.addExtension(org.bouncycastle.asn1.x509.Extension.cRLNumber, false,
                new org.bouncycastle.asn1.x509.CRLNumber(BigInteger.ONE));
        for (int i = 0; i < 1000; i++) {
            crl.addCRLEntry(BigInteger.valueOf(1_000_000L + i), Date.from(now.minus(1, ChronoUnit.HOURS)),
                    CRLReason.keyCompromise);
        }
        byte[] crlDer = crl.build(new JcaContentSignerBuilder("SHA256withECDSA").build(ca.getKeyPair().getPrivate()))
                .getEncoded();
        X509CRL parsed = (X509CRL) CertificateFactory.getInstance("X.509")
                .generateCRL(new java.io.ByteArrayInputStream(crlDer));
        List<X509Certificate> cas = List.of(ca.getCertificate());
        RevocationLists crls = RevocationLists.of(List.of(parsed), cas);
        pkix = DeviceCertificateVerifier.pkix(cas, crls, false);
        leanCold = DeviceCertificateVerifier.lean(cas, crls, false, 0);
        leanWarm = DeviceCertificateVerifier.lean(cas, crls, false, 100_000);
        for (byte[] device : devices) {
            leanWarm.verify(new X509Certificate[] {new LazyX509Certificate(device)}, System.currentTimeMillis());
        }
    }

    /**
     * Thread CPU time spent in verification and the verifications done, per iteration: on a shared, overloaded
     * machine the wall-clock score includes time the thread waited for a core; {@code cpuNanos / verifications} does
     * not. Read once per batch of {@value #BATCH}, so the clock's own cost is spread thin.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class CpuTime {
        public long cpuNanos;
        public long verifications;
    }

    private static final int BATCH = 64;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private long verifyBatch(DeviceCertificateVerifier verifier, CpuTime cpu) throws Exception {
        long start = THREADS.getCurrentThreadCpuTime();
        long hash = 0;
        for (int i = 0; i < BATCH; i++) {
            X509Certificate[] chain = {new LazyX509Certificate(devices[next++ & (DEVICES - 1)])};
            verifier.verify(chain, System.currentTimeMillis());
            hash += chain.length;
        }
        cpu.cpuNanos += THREADS.getCurrentThreadCpuTime() - start;
        cpu.verifications += BATCH;
        return hash;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long pkix(CpuTime cpu) throws Exception {
        return verifyBatch(pkix, cpu);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long leanCold(CpuTime cpu) throws Exception {
        return verifyBatch(leanCold, cpu);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long leanWarm(CpuTime cpu) throws Exception {
        return verifyBatch(leanWarm, cpu);
    }
}
