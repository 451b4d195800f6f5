/**
 * HTTP authentication of devices: {@code auth.provider: http}, an {@code Authenticator} that asks the platform's
 * auth service once per device and credential ({@code http}), remembers and shares answers ({@code cache}), bounds
 * and trips on a failing service ({@code resilience}) and pins certificates ({@code x509}).
 */
package io.mqttgw.auth;
