/**
 * What makes a second CONNECT of a device cheap: answers remembered per device and credential for a while
 * ({@link io.mqttgw.auth.cache.ResultCache}), and the key that says which CONNECTs may share an answer
 * ({@link io.mqttgw.auth.cache.DeviceKey}).
 */
package io.mqttgw.auth.cache;
