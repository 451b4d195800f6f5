/** The event loop groups every listener of a node runs on (devices and admin), which close their channels on stop. */
package io.mqttgw.core.eventloop;
