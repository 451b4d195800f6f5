/** Admission control, first in the pipeline: a rate of new connections and a budget of concurrent TLS handshakes. */
package io.mqttgw.core.admission;
