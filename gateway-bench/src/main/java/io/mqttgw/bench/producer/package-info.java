/**
 * The Kafka uplink producer at a node's record rate: the gateway's own sink, fed at fixed rates from threads that
 * play event loops, with the CPU per record of the producer's network thread, the senders, the process and the
 * broker. Driven by {@code gateway-bench/bin/producer-rate.sh}.
 */
package io.mqttgw.bench.producer;
