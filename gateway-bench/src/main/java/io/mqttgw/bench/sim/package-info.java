/** The simulated-device client: command-line entry point and subcommand dispatch. */
package io.mqttgw.bench.sim;
