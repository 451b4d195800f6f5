/** Overload detection: sampled signals with hysteresis turned into a level, and the built-in reactions to it. */
package io.mqttgw.core.overload;
