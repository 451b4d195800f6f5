package io.mqttgw.core;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a use of an API the build's forbidden-API check refuses (the default charset or locale, {@code System.out},
 * a JDK-internal class) as deliberate; {@link #reason} says why it is right there.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.TYPE, ElementType.FIELD})
public @interface SuppressForbidden {
    String reason();
}
