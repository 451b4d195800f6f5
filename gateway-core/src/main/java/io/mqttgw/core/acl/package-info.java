/** Which topics a device may publish and subscribe to: filter templates checked on the event loop. */
package io.mqttgw.core.acl;
