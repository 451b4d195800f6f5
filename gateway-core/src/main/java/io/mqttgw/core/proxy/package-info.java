/** The PROXY protocol (v1 and v2) from an L4 balancer: the device's real address, from trusted proxies only. */
package io.mqttgw.core.proxy;
