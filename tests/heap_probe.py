"""Is a 5 MB block mapped on its own after a 16 MB block was freed? glibc's dynamic threshold says
no; server/memory.py's limit_heap_fragmentation (from 4 MB up) says yes. As a script, prints ``mapped_alone: True|False``.
Used by tests/test_heap.py (a corpus worker runs ``mapped_alone``; the script, without the limit, is the control)."""
import ctypes


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]


def mapped_alone() -> bool:
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]
    libc.free(libc.malloc(16 * 2**20))  # freeing a mapped 16 MB block raises glibc's dynamic threshold
    before = libc.mallinfo2().hblks
    block = libc.malloc(5 * 2**20)
    alone = libc.mallinfo2().hblks == before + 1
    libc.free(block)
    return alone


if __name__ == "__main__":
    print(f"mapped_alone: {mapped_alone()}")
