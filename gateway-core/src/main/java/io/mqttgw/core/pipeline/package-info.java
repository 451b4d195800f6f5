/** The device channel pipeline: assembled in one initializer, every handler under a name from {@code HandlerNames}. */
package io.mqttgw.core.pipeline;
