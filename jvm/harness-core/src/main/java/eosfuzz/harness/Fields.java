package eosfuzz.harness;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Typed reads of a request object, each naming the field it wanted when the request is wrong: the
 * TypeScript side sends what it means, and a mistake there is a harness error (the reply's
 * harnessError), never a Kafka answer.
 */
public final class Fields {
    private final Map<String, Object> map;

    public Fields(Map<String, Object> map) {
        this.map = map;
    }

    @SuppressWarnings("unchecked")
    public static Fields of(Object value, String what) {
        if (!(value instanceof Map)) throw new HarnessException(what + " must be an object");
        return new Fields((Map<String, Object>) value);
    }

    public boolean has(String key) {
        return map.containsKey(key) && map.get(key) != null;
    }

    public Object raw(String key) {
        return map.get(key);
    }

    public long getLong(String key) {
        Object v = map.get(key);
        if (!(v instanceof Long)) throw new HarnessException("field " + key + " must be an integer, got " + v);
        return (Long) v;
    }

    public long getLong(String key, long fallback) {
        return has(key) ? getLong(key) : fallback;
    }

    public int getInt(String key) {
        long v = getLong(key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw new HarnessException("field " + key + " out of int range: " + v);
        return (int) v;
    }

    public int getInt(String key, int fallback) {
        return has(key) ? getInt(key) : fallback;
    }

    public short getShort(String key) {
        long v = getLong(key);
        if (v < Short.MIN_VALUE || v > Short.MAX_VALUE) throw new HarnessException("field " + key + " out of int16 range: " + v);
        return (short) v;
    }

    public boolean getBool(String key) {
        Object v = map.get(key);
        if (!(v instanceof Boolean)) throw new HarnessException("field " + key + " must be a boolean, got " + v);
        return (Boolean) v;
    }

    public boolean getBool(String key, boolean fallback) {
        return has(key) ? getBool(key) : fallback;
    }

    public String getString(String key) {
        Object v = map.get(key);
        if (!(v instanceof String)) throw new HarnessException("field " + key + " must be a string, got " + v);
        return (String) v;
    }

    public String getString(String key, String fallback) {
        return has(key) ? getString(key) : fallback;
    }

    @SuppressWarnings("unchecked")
    public List<Object> getList(String key) {
        Object v = map.get(key);
        if (v == null) return Collections.emptyList();
        if (!(v instanceof List)) throw new HarnessException("field " + key + " must be an array, got " + v);
        return (List<Object>) v;
    }
}
