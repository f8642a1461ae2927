// GetPut against Caffeine, for scripts/versus-caffeine.sh: the key ring and
// write positions that `evlab bench concurrent --write-workload` wrote, a
// cache of 65,536 entries filled with the keys 0..<65,536, N threads walking
// the ring from their own offsets for a fixed time. Caffeine is a reference
// here, never a dependency: this file is compiled at run time against
// Debian's libcaffeine-java.
//
//   java -cp CLASSES:/usr/share/java/caffeine.jar GetPut WORKLOAD MIXES THREADS SECONDS
//   (MIXES like 100/0,75/25; THREADS like 1,2)
//
// Prints one JSON object a cell: {"contender", "mix", "threads", "ops_per_second"}.

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

public final class GetPut {
  static final int CAPACITY = 2 << 15;

  static volatile boolean stop;

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: GetPut WORKLOAD MIXES THREADS SECONDS");
      System.exit(2);
    }
    Path workload = Path.of(args[0]);
    Long[] keys = readKeys(workload.resolve("getput-keys.u64"));
    double seconds = Double.parseDouble(args[3]);
    // Every cell once, unmeasured, for at least a second, so that the JIT
    // has compiled the walk and Caffeine's paths before anything is timed.
    for (String mix : args[1].split(",")) {
      boolean[] writes = readWrites(workload.resolve("getput-writes-" + mix.replace('/', '-') + ".u8"), keys.length);
      for (String count : args[2].split(",")) measure(keys, writes, Integer.parseInt(count), Math.max(1, seconds));
    }
    for (String mix : args[1].split(",")) {
      boolean[] writes = readWrites(workload.resolve("getput-writes-" + mix.replace('/', '-') + ".u8"), keys.length);
      for (String count : args[2].split(",")) {
        int threads = Integer.parseInt(count);
        double ops = measure(keys, writes, threads, seconds);
        System.out.printf(
            "{\"contender\": \"caffeine\", \"mix\": \"%s\", \"threads\": %d, \"ops_per_second\": %.1f}%n",
            mix, threads, ops);
      }
    }
  }

  static Long[] readKeys(Path path) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN);
    Long[] keys = new Long[bytes.capacity() / 8];
    for (int i = 0; i < keys.length; i++) keys[i] = bytes.getLong();
    if (keys.length == 0 || Integer.bitCount(keys.length) != 1) throw new IOException(path + ": not a key ring");
    return keys;
  }

  static boolean[] readWrites(Path path, int length) throws IOException {
    byte[] bytes = Files.readAllBytes(path);
    if (bytes.length != length) throw new IOException(path + ": " + bytes.length + " positions, not " + length);
    boolean[] writes = new boolean[length];
    for (int i = 0; i < length; i++) writes[i] = bytes[i] != 0;
    return writes;
  }

  /** Operations per second of `threads` threads walking the ring for `seconds`. */
  static double measure(Long[] keys, boolean[] writes, int threads, double seconds) throws InterruptedException {
    Cache<Long, Long> cache = Caffeine.newBuilder().maximumSize(CAPACITY).build();
    for (long key = 0; key < CAPACITY; key++) cache.put(key, key);
    stop = false;
    AtomicInteger arrived = new AtomicInteger();
    AtomicLong total = new AtomicLong();
    Thread[] workers = new Thread[threads];
    int mask = keys.length - 1;
    for (int t = 0; t < threads; t++) {
      // The starting offsets of evlab's walk.
      int start = (t * 7_919 * 64) & mask;
      workers[t] =
          new Thread(
              () -> {
                arrived.incrementAndGet();
                while (arrived.get() <= threads) Thread.onSpinWait();
                int position = start;
                long ops = 0;
                while (!stop) {
                  for (int i = 0; i < 256; i++) {
                    Long key = keys[position];
                    if (writes[position]) cache.put(key, key);
                    else cache.getIfPresent(key);
                    position = (position + 1) & mask;
                  }
                  ops += 256;
                }
                total.addAndGet(ops);
              });
      workers[t].start();
    }
    while (arrived.get() < threads) Thread.onSpinWait();
    long begin = System.nanoTime();
    arrived.incrementAndGet();
    Thread.sleep((long) (seconds * 1000));
    stop = true;
    for (Thread worker : workers) worker.join();
    double elapsed = (System.nanoTime() - begin) / 1e9;
    return total.get() / elapsed;
  }
}
