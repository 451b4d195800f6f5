package io.mqttgw.bench.sim.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code bench --version}: the project version the build wrote into bench-version.properties, and the JVM. */
public final class BenchVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"bench " + version(), "JVM: ${java.version} (${java.vendor} ${java.vm.name})"};
    }

    static String version() {
        Properties p = new Properties();
        try (InputStream in = BenchVersion.class.getResourceAsStream("bench-version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }
}
