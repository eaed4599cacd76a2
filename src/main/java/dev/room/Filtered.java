package dev.room;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;

/** An iterator that maps each element and skips those mapped to null. */
final class Filtered<T> implements Iterator<T> {
  private final Iterator<T> source;
  private final Function<T, T> map;
  private T next;

  private Filtered(Iterator<T> source, Function<T, T> map) {
    this.source = source;
    this.map = map;
  }

  static <T> Iterator<T> of(Iterator<T> source, Function<T, T> map) {
    return new Filtered<>(source, map);
  }

  @Override
  public boolean hasNext() {
    while (next == null && source.hasNext()) {
      next = map.apply(source.next());
    }
    return next != null;
  }

  @Override
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    T t = next;
    next = null;
    return t;
  }
}
