/** The runnable distribution's Java side: the development PKI for the demo; the rest is launcher and config. */
package io.mqttgw.deploy;
