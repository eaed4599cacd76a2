/** A drop-in FIFO virtual waiting room for Jakarta Servlet applications. */
package dev.room;
