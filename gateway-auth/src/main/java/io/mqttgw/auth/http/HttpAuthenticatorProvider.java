package io.mqttgw.auth.http;

import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.AuthenticatorProvider;
import io.mqttgw.core.spi.ProviderContext;
import java.util.List;

/** {@code auth.provider: http}: settings validated at startup, one client and one authenticator per node. */
public final class HttpAuthenticatorProvider implements AuthenticatorProvider {
    @Override
    public String name() {
        return "http";
    }

    @Override
    public List<ConfigKey<?>> configKeys() {
        return HttpAuthConfigKeys.ALL;
    }

    @Override
    public List<String> openPrefixes() {
        return List.of(HttpAuthConfigKeys.HEADERS);
    }

    @Override
    public Authenticator create(ProviderContext context) {
        HttpAuthSettings settings = HttpAuthSettings.from(context.config().values());
        return new HttpAuthenticator(settings, new AhcAuthService(settings, context.meters()), context.meters(),
                System::nanoTime);
    }
}
