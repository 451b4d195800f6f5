/** End-of-run output: the JSON summary and a self-contained HTML report with inline SVG plots (no scripts). */
package io.mqttgw.bench.sim.report;
