/** The gateway's core: protocol handling, TLS, registry, overload protection, the SPI and its embedded defaults. */
package io.mqttgw.core;
