/**
 * What keeps a slow or failing auth service from taking the gateway with it: a bound on calls in flight with a
 * bounded wait queue ({@link io.mqttgw.auth.resilience.CallLimiter}) and a circuit breaker that stops calling a
 * service that keeps failing and probes it to close ({@link io.mqttgw.auth.resilience.CircuitBreaker}), and
 * per-identity bounds on calls in flight and on denied calls ({@link io.mqttgw.auth.resilience.IdentityGuard}).
 */
package io.mqttgw.auth.resilience;
