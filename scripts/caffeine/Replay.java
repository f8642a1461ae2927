import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Replays an uncompressed oracleGeneral trace (24-byte little-endian records: u32 time, u64 id,
 * u32 size, i64 next access) through the real Caffeine, one thread, maintenance on the calling
 * thread: each request is getIfPresent, each miss a put. The thread's ThreadLocalRandom seed is
 * pinned before each cache is built, so the sketch's seed and the admission jitter are fixed.
 *
 * <p>java --add-opens java.base/java.lang=ALL-UNNAMED -cp caffeine.jar:classes Replay TRACE
 * count|bytes SEED SIZE... prints one tab-separated line per size: size, requests, misses, bytes
 * missed, a fingerprint of which requests missed (FNV-1a over their 0-based positions) and the
 * sketch's spread seed. EvictionLab's `caffeine` model must print the same.
 */
public final class Replay {
  public static void main(String[] args) throws Exception {
    if (args.length < 4 || !(args[1].equals("count") || args[1].equals("bytes"))) {
      System.err.println("usage: Replay TRACE count|bytes SEED SIZE...");
      System.exit(2);
    }
    if (Thread.currentThread().getId() != 1) {
      throw new IllegalStateException("the model assumes the main thread (id 1)");
    }
    long[][] trace = read(args[0]);
    boolean bytes = args[1].equals("bytes");
    long seed = Long.parseLong(args[2]);
    Field threadSeed = Thread.class.getDeclaredField("threadLocalRandomSeed");
    threadSeed.setAccessible(true);
    ThreadLocalRandom.current(); // initialises the thread's probe and seed once
    for (int i = 3; i < args.length; i++) {
      long size = Long.parseLong(args[i]);
      threadSeed.setLong(Thread.currentThread(), seed);
      Caffeine<Object, Object> builder = Caffeine.newBuilder().executor(Runnable::run);
      Cache<Long, Integer> cache =
          bytes
              ? builder.maximumWeight(size).weigher((Long k, Integer v) -> v).build()
              : builder.maximumSize(size).<Long, Integer>build();
      long misses = 0;
      long bytesMissed = 0;
      long fingerprint = 0xcbf29ce484222325L;
      long[] ids = trace[0];
      long[] sizes = trace[1];
      for (int r = 0; r < ids.length; r++) {
        Long key = ids[r];
        if (cache.getIfPresent(key) == null) {
          misses++;
          bytesMissed += sizes[r];
          fingerprint = (fingerprint ^ r) * 0x100000001b3L;
          cache.put(key, (int) sizes[r]);
        }
      }
      System.out.printf(
          "%d\t%d\t%d\t%d\t%016x\t%d%n",
          size, ids.length, misses, bytesMissed, fingerprint, sketchSeed(cache));
    }
  }

  /** The seed the cache's FrequencySketch drew, read by reflection. */
  static int sketchSeed(Cache<?, ?> cache) throws Exception {
    Field inner = cache.getClass().getDeclaredField("cache");
    inner.setAccessible(true);
    Object local = inner.get(cache);
    Method sketch = findMethod(local.getClass(), "frequencySketch");
    sketch.setAccessible(true);
    Object frequencySketch = sketch.invoke(local);
    Field randomSeed = frequencySketch.getClass().getDeclaredField("randomSeed");
    randomSeed.setAccessible(true);
    return randomSeed.getInt(frequencySketch);
  }

  static Method findMethod(Class<?> type, String name) throws NoSuchMethodException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.getName().equals(name) && m.getParameterCount() == 0) {
          return m;
        }
      }
    }
    throw new NoSuchMethodException(name);
  }

  /** The trace's ids and sizes. */
  static long[][] read(String path) throws IOException {
    java.io.File file = new java.io.File(path);
    long length = file.length();
    if (length % 24 != 0) {
      throw new IOException(path + ": not whole 24-byte oracleGeneral records");
    }
    int n = Math.toIntExact(length / 24);
    long[] ids = new long[n];
    long[] sizes = new long[n];
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(new FileInputStream(file), 1 << 16))) {
      byte[] record = new byte[24];
      for (int i = 0; i < n; i++) {
        in.readFully(record);
        ids[i] = littleEndian(record, 4, 8);
        sizes[i] = littleEndian(record, 12, 4);
      }
    } catch (EOFException e) {
      throw new IOException(path + ": ends inside a record", e);
    }
    return new long[][] {ids, sizes};
  }

  static long littleEndian(byte[] bytes, int offset, int count) {
    long value = 0;
    for (int i = count - 1; i >= 0; i--) {
      value = (value << 8) | (bytes[offset + i] & 0xffL);
    }
    return value;
  }
}
