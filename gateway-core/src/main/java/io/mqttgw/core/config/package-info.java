/** Configuration: declared keys, the loader (YAML file, environment, system properties) and the immutable snapshot. */
package io.mqttgw.core.config;
