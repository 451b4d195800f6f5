/** The HTTP authentication benchmark (BENCHMARKS.md), off unless {@code -Dauth.bench=true}. */
package io.mqttgw.auth.bench;
