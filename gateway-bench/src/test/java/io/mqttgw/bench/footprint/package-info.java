/** Heap bytes an established device connection keeps, measured on its object graph (issue 15). */
package io.mqttgw.bench.footprint;
