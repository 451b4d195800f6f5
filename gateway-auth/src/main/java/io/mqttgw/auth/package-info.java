/** HTTP authentication of devices, an {@code Authenticator} found by ServiceLoader (issue 5; not built yet). */
package io.mqttgw.auth;
