#!/usr/bin/env python3
"""mkimage.py KERNEL_ELF IMAGE - make the flat RISC-V Image from the kernel.

The kernel is linked at 0x80200000 but must run wherever the loader puts
it.  Code is pc-relative (-mcmodel=medany), so only the absolute 64-bit
pointers stored in the image (R_RISCV_64: function tables, string arrays,
test suite records...) depend on the address.  The elf toolchain's ld
cannot link -pie, so the kernel is linked with --emit-relocs and this
script turns those relocations into a table that head.S applies at boot:

  Image = [ bytes __kernel_start .. end of .data ][ pad to __bss_start ]
          [ "KRLC" u32 magic ][ u32 count ][ u32 offset from __kernel_start ]*

The table lies where .bss will be (head.S reads it before clearing .bss),
so it costs no memory; its size is checked against .bss here.  Any other
absolute relocation in an allocated section is an error: it could not be
fixed up at boot.
"""
import struct
import sys

R_RISCV_32, R_RISCV_64 = 1, 2
# Absolute address forms that a moved kernel could not survive.
R_ABSOLUTE_BAD = {R_RISCV_32, 26, 27, 28}  # 32, HI20, LO12_I, LO12_S
SHT_RELA, SHF_ALLOC, SHT_NOBITS = 4, 2, 8
MAGIC = 0x434C524B  # "KRLC"


def main(elf_path, image_path):
    elf = open(elf_path, "rb").read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        sys.exit(f"{elf_path}: not an ELF64 file")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
            for i in range(shnum)]
    strtab_sec = secs[shstrndx]

    def name(sec):
        off = strtab_sec[4] + sec[0]
        return elf[off:elf.index(b"\0", off)].decode()

    # Symbols from .symtab.
    syms = {}
    for s in secs:
        if s[1] == 2:  # SHT_SYMTAB
            strs = secs[s[6]][4]
            for i in range(s[5] // 24):
                st_name, _, _, _, value, _ = struct.unpack_from(
                    "<IBBHQQ", elf, s[4] + i * 24)
                n = elf[strs + st_name:elf.index(b"\0", strs + st_name)]
                syms[n.decode()] = value
    start, bss, bss_end = (syms["__kernel_start"], syms["__bss_start"],
                           syms["__bss_end"])

    offsets = []
    for s in secs:
        if s[1] != SHT_RELA or not (secs[s[7]][2] & SHF_ALLOC):
            continue
        target = secs[s[7]]
        for i in range(s[5] // 24):
            r_offset, r_info, _ = struct.unpack_from("<QQq", elf, s[4] + i * 24)
            rtype = r_info & 0xFFFFFFFF
            if rtype == R_RISCV_64:
                if target[1] == SHT_NOBITS:
                    sys.exit(f"pointer initialiser in {name(target)}?")
                offsets.append(r_offset - start)
            elif rtype in R_ABSOLUTE_BAD:
                sys.exit(f"{elf_path}: absolute relocation type {rtype} at "
                         f"{r_offset:#x} in {name(target)}: the kernel must "
                         "be position independent (-mcmodel=medany)")

    # The loadable bytes, as objcopy -O binary would give them.
    image = bytearray(bss - start)
    for s in secs:
        if s[2] & SHF_ALLOC and s[1] != SHT_NOBITS and s[5]:
            if not start <= s[3] < bss:
                sys.exit(f"section {name(s)} outside the image")
            image[s[3] - start:s[3] - start + s[5]] = elf[s[4]:s[4] + s[5]]
    table = struct.pack(f"<II{len(offsets)}I", MAGIC, len(offsets),
                        *sorted(offsets))
    if len(table) > bss_end - bss:
        sys.exit(f"relocation table ({len(table)} bytes) larger than .bss")
    open(image_path, "wb").write(bytes(image) + table)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
