package io.mqttgw.core.cli;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;

/**
 * The defaults of the connection options of {@code gateway clients}: an option's environment variable when set,
 * else its value in the {@code --cli-config} file (or {@code GATEWAY_CLI_CONFIG}), else null (the option's own
 * default). The file is a Java properties file whose keys are the long option names without dashes, so an operator
 * who calls often writes the URL and the certificate paths once instead of on every command.
 */
final class CliConfig implements CommandLine.IDefaultValueProvider {
    /** The option names the file may set, with their environment variables. */
    private static final Map<String, String> ENV = Map.of(
            "admin-url", "GATEWAY_ADMIN_URL",
            "token-file", "GATEWAY_ADMIN_TOKEN_FILE",
            "cert", "GATEWAY_ADMIN_CERT",
            "key", "GATEWAY_ADMIN_KEY",
            "ca-file", "GATEWAY_ADMIN_CA_FILE",
            "timeout", "GATEWAY_ADMIN_TIMEOUT");
    private static final Set<String> PATHS = Set.of("token-file", "cert", "key", "ca-file");

    private final Map<String, String> env;
    private final Properties file;

    private CliConfig(Map<String, String> env, Properties file) {
        this.env = env;
        this.file = file;
    }

    /**
     * The defaults for {@code args}: the file named by their {@code --cli-config} (else by GATEWAY_CLI_CONFIG) is read
     * and checked here, before picocli parses, so a bad file stops the command with its own message.
     */
    static CliConfig of(String[] args, Map<String, String> env) {
        String named = env.get("GATEWAY_CLI_CONFIG");
        for (int i = 0; i < args.length; i++) {
            if ("--cli-config".equals(args[i]) && i + 1 < args.length) {
                named = args[i + 1];
            } else if (args[i].startsWith("--cli-config=")) {
                named = args[i].substring("--cli-config=".length());
            }
        }
        Properties properties = new Properties();
        if (named != null && !named.isEmpty()) {
            Path path = Path.of(named);
            try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                properties.load(in);
            } catch (IOException | IllegalArgumentException e) {
                throw new ClientsCommand.Failure(ClientsCommand.USAGE, "cannot read --cli-config " + path + ": " + e);
            }
            Set<String> unknown = new TreeSet<>(properties.stringPropertyNames());
            unknown.removeAll(ENV.keySet());
            if (!unknown.isEmpty()) {
                throw new ClientsCommand.Failure(ClientsCommand.USAGE, "--cli-config " + path + ": unknown key "
                        + unknown.iterator().next() + " (known: " + new TreeSet<>(ENV.keySet()) + ")");
            }
            Path base = path.toAbsolutePath().getParent();
            for (String key : PATHS) {
                String value = properties.getProperty(key);
                if (value != null && !value.isBlank()) {
                    properties.setProperty(key, base.resolve(value.strip()).toString());
                }
            }
        }
        return new CliConfig(env, properties);
    }

    @Override
    public String defaultValue(CommandLine.Model.ArgSpec argSpec) {
        if (!(argSpec instanceof CommandLine.Model.OptionSpec option)) {
            return null;
        }
        String name = option.longestName().substring(2).toLowerCase(Locale.ROOT);
        String variable = ENV.get(name);
        if (variable == null) {
            return null;
        }
        String fromEnv = env.get(variable);
        if (fromEnv != null && !fromEnv.isEmpty()) {
            return fromEnv;
        }
        String fromFile = file.getProperty(name);
        return fromFile == null || fromFile.isBlank() ? null : fromFile.strip();
    }
}
