package io.mqttgw.core.spi;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * One session's subscriptions: topic filter to {@link Subscription}, in subscription order, immutable. A change
 * ({@link #with}, {@link #without}) makes a new instance, which is cheap because devices subscribe a handful of
 * filters once per connection. Being immutable, one instance is shared by the connection and the session store
 * instead of each keeping its own copy. Two arrays instead of a {@code LinkedHashMap}: about 60 B for a device's
 * usual two filters against about 230 B, per connection and again per stored session (class histogram).
 * Safe to read from any thread.
 */
public final class Subscriptions extends AbstractMap<String, Subscription> {
    public static final Subscriptions NONE = new Subscriptions(new String[0], new Subscription[0]);

    private final String[] filters;
    private final Subscription[] values;

    private Subscriptions(String[] filters, Subscription[] values) {
        this.filters = filters;
        this.values = values;
    }

    /** {@code map} as subscriptions, in its iteration order; the same instance when it already is one. */
    public static Subscriptions copyOf(Map<String, Subscription> map) {
        if (map instanceof Subscriptions s) {
            return s;
        }
        if (map == null || map.isEmpty()) {
            return NONE;
        }
        String[] f = new String[map.size()];
        Subscription[] v = new Subscription[f.length];
        int i = 0;
        for (Map.Entry<String, Subscription> e : map.entrySet()) {
            f[i] = e.getKey();
            v[i++] = e.getValue();
        }
        return new Subscriptions(f, v);
    }

    /** These subscriptions with {@code filter} set to {@code subscription} (replaced in place, or appended). */
    public Subscriptions with(String filter, Subscription subscription) {
        int i = indexOf(filter);
        if (i >= 0) {
            if (values[i].equals(subscription)) {
                return this;
            }
            Subscription[] v = values.clone();
            v[i] = subscription;
            return new Subscriptions(filters, v);
        }
        String[] f = Arrays.copyOf(filters, filters.length + 1);
        Subscription[] v = Arrays.copyOf(values, values.length + 1);
        f[filters.length] = filter;
        v[values.length] = subscription;
        return new Subscriptions(f, v);
    }

    /** These subscriptions without {@code filter}; this instance when it is not there. */
    public Subscriptions without(String filter) {
        int i = indexOf(filter);
        if (i < 0) {
            return this;
        }
        if (filters.length == 1) {
            return NONE;
        }
        String[] f = new String[filters.length - 1];
        Subscription[] v = new Subscription[f.length];
        System.arraycopy(filters, 0, f, 0, i);
        System.arraycopy(values, 0, v, 0, i);
        System.arraycopy(filters, i + 1, f, i, f.length - i);
        System.arraycopy(values, i + 1, v, i, v.length - i);
        return new Subscriptions(f, v);
    }

    /** The filter at {@code index} (0 to size - 1): iteration without an iterator, for the downlink path. */
    public String filter(int index) {
        return filters[index];
    }

    /** The subscription at {@code index}. */
    public Subscription subscription(int index) {
        return values[index];
    }

    @Override
    public int size() {
        return filters.length;
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public Subscription get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : values[i];
    }

    private int indexOf(Object filter) {
        for (int i = 0; i < filters.length; i++) {
            if (filters[i].equals(filter)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Set<Map.Entry<String, Subscription>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Subscription>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < filters.length;
                    }

                    @Override
                    public Map.Entry<String, Subscription> next() {
                        if (next >= filters.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new SimpleImmutableEntry<>(filters[i], values[i]);
                    }
                };
            }

            @Override
            public int size() {
                return filters.length;
            }
        };
    }
}
