/** Minimal JSON writing and reading for the worker stats lines and the summary (no external library needed). */
package io.mqttgw.bench.sim.json;
