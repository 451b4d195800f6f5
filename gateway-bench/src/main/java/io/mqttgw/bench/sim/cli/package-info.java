/**
 * The {@code bench} command line on picocli: one subcommand per scenario plus {@code pki} and {@code completion},
 * typed options with converters, per-command help and {@code --version}. Runs once on the main thread.
 */
package io.mqttgw.bench.sim.cli;
