import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  executableKind,
  hasBlockedExtension,
  isExecutable,
  mimeAllowed,
  sniffType,
} from '../../src/modules/files/file-guards.ts';
import { DEFAULT_MIME_ALLOW_LIST } from '../../src/modules/files/settings.ts';

/** Content guards, fed with real file headers. */
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const pad = (b: Buffer, n = 64) => Buffer.concat([b, Buffer.alloc(Math.max(0, n - b.length))]);

// A real 1×1 PNG (signature, IHDR, IDAT, IEND).
const PNG = hex(
  '89504e470d0a1a0a 0000000d49484452 0000000100000001 0806000000 1f15c489' +
    '0000000d49444154 789c6300010000050001 0d0a2db4 0000000049454e44ae426082',
);
const JPEG = pad(hex('ffd8ffe000104a46494600010100000100010000'));
const GIF = pad(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00', 'latin1'));
const PDF = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1');

/** A real zip archive with one stored file. */
function zip(name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const nameBuf = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8); // deflate
  const compressed = deflateRawSync(data);
  local.writeUInt32LE(compressed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBuf.length, 26);
  return Buffer.concat([local, nameBuf, compressed]);
}

// Executable headers as the first bytes of real binaries.
const PE = (() => {
  const b = Buffer.alloc(0x100);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x80, 0x3c); // e_lfanew
  b.write('PE\0\0', 0x80, 'latin1');
  b.writeUInt16LE(0x8664, 0x84); // x86-64
  return b;
})();
const ELF64 = pad(hex('7f454c46 02 01 01 00 0000000000000000 0200 3e00 01000000'));
const MACHO_64_LE = pad(hex('cffaedfe 07000001 03000000 02000000')); // x86_64 executable
const MACHO_32_LE = pad(hex('cefaedfe 07000000 03000000 02000000'));
const MACHO_64_BE = pad(hex('feedfacf 01000007 00000003 00000002'));
const MACHO_32_BE = pad(hex('feedface 00000012 00000000 00000002')); // ppc
const FAT = pad(hex('cafebabe 00000002 01000007 00000003')); // universal binary, 2 archs
const FAT_LE = pad(hex('bebafeca 02000000'));
const FAT64 = pad(hex('cafebabf 00000002'));
const FAT64_LE = pad(hex('bfbafeca 02000000'));
const JAVA_CLASS = pad(hex('cafebabe 0000 0041 001d 0a00')); // major 65 (Java 21)
const SHEBANG = Buffer.from('#!/usr/bin/env python3\nprint("hi")\n');

describe('sniffType', () => {
  it('tells what the bytes are, whatever the name says', async () => {
    expect(await sniffType(PNG)).toEqual({ mime: 'image/png', ext: 'png' });
    expect(await sniffType(JPEG)).toEqual({ mime: 'image/jpeg', ext: 'jpg' });
    expect(await sniffType(GIF)).toEqual({ mime: 'image/gif', ext: 'gif' });
    expect(await sniffType(PDF)).toEqual({ mime: 'application/pdf', ext: 'pdf' });
    expect(await sniffType(zip('notes.txt', 'hello hello hello'))).toEqual({ mime: 'application/zip', ext: 'zip' });
    expect((await sniffType(PE))?.ext).toBe('exe');
    expect((await sniffType(ELF64))?.ext).toBe('elf');
  });

  it('answers null for content without a signature', async () => {
    expect(await sniffType(Buffer.from('just,some,csv\n1,2,3\n'))).toBeNull();
    expect(await sniffType(Buffer.alloc(0))).toBeNull();
  });
});

describe('isExecutable', () => {
  it('detects PE/MZ, ELF, every Mach-O magic, shebang scripts and Java classes', () => {
    expect(executableKind(PE)).toBe('pe');
    expect(executableKind(Buffer.from('MZ'))).toBe('pe');
    expect(executableKind(ELF64)).toBe('elf');
    for (const b of [MACHO_64_LE, MACHO_32_LE, MACHO_64_BE, MACHO_32_BE]) expect(executableKind(b)).toBe('mach-o');
    for (const b of [FAT, FAT_LE, FAT64, FAT64_LE]) expect(executableKind(b)).toBe('mach-o-fat');
    expect(executableKind(JAVA_CLASS)).toBe('java-class');
    expect(executableKind(SHEBANG)).toBe('script');
    for (const b of [PE, ELF64, MACHO_64_LE, FAT, JAVA_CLASS, SHEBANG]) expect(isExecutable(b)).toBe(true);
  });

  it('passes documents, images, text and short input', () => {
    for (const b of [
      PNG,
      JPEG,
      GIF,
      PDF,
      zip('a.txt', 'a'),
      Buffer.from('# heading\n'),
      Buffer.from('M'),
      Buffer.alloc(0),
    ])
      expect(isExecutable(b)).toBe(false);
    // a byte-order mark before "#!" is not a script the kernel runs
    expect(isExecutable(Buffer.from('\ufeff#!/bin/sh'))).toBe(false);
  });
});

describe('hasBlockedExtension', () => {
  const blocked = ['.exe', 'BAT', 'sh', '.tar.gz'];

  it('checks the last extension, case-insensitive, with or without a leading dot in the list', () => {
    expect(hasBlockedExtension('setup.exe', blocked)).toBe(true);
    expect(hasBlockedExtension('SETUP.EXE', blocked)).toBe(true);
    expect(hasBlockedExtension('run.bat', blocked)).toBe(true);
    expect(hasBlockedExtension('deploy.Sh', blocked)).toBe(true);
    expect(hasBlockedExtension('report.pdf', blocked)).toBe(false);
    expect(hasBlockedExtension('exe', blocked)).toBe(false);
    // Windows treats ".exe" as a nameless file of type .exe: blocked, to be safe
    expect(hasBlockedExtension('.exe', blocked)).toBe(true);
    expect(hasBlockedExtension('noext', blocked)).toBe(false);
    expect(hasBlockedExtension('setup.exe', [])).toBe(false);
  });

  it('sees through double extensions and Windows name tricks', () => {
    expect(hasBlockedExtension('invoice.pdf.exe', blocked)).toBe(true);
    expect(hasBlockedExtension('photo.JPG.bat', blocked)).toBe(true);
    expect(hasBlockedExtension('backup.tar.gz', blocked)).toBe(true);
    expect(hasBlockedExtension('data.gz', blocked)).toBe(false);
    expect(hasBlockedExtension('setup.exe.', blocked)).toBe(true);
    expect(hasBlockedExtension('setup.exe  ', blocked)).toBe(true);
    expect(hasBlockedExtension('setup.exe::$DATA', blocked)).toBe(true);
    expect(hasBlockedExtension('C:\\temp\\setup.exe', blocked)).toBe(true);
    expect(hasBlockedExtension('dir.exe/readme.txt', blocked)).toBe(false);
    // an inner extension alone does not block
    expect(hasBlockedExtension('my.exe.notes.txt', blocked)).toBe(false);
  });
});

describe('mimeAllowed', () => {
  const list = ['image/*', 'application/pdf', 'Text/Plain'];

  it('matches exact types and type/* patterns, ignoring case and parameters', () => {
    expect(mimeAllowed('image/png', list)).toBe(true);
    expect(mimeAllowed('IMAGE/WEBP', list)).toBe(true);
    expect(mimeAllowed('application/pdf', list)).toBe(true);
    expect(mimeAllowed('text/plain; charset=utf-8', list)).toBe(true);
    expect(mimeAllowed('text/html', list)).toBe(false);
    expect(mimeAllowed('application/pdf+evil', list)).toBe(false);
    expect(mimeAllowed('imagex/png', list)).toBe(false);
    expect(mimeAllowed('image', list)).toBe(false);
    expect(mimeAllowed('', list)).toBe(false);
    expect(mimeAllowed('application/zip', [])).toBe(false);
    expect(mimeAllowed('application/zip', ['*/*'])).toBe(true);
  });

  it('the default list takes office documents, images, PDF, text and zip, not executables or HTML', () => {
    for (const m of ['image/png', 'application/pdf', 'text/plain', 'application/zip', 'text/csv'])
      expect(mimeAllowed(m, DEFAULT_MIME_ALLOW_LIST)).toBe(true);
    expect(
      mimeAllowed('application/vnd.openxmlformats-officedocument.wordprocessingml.document', DEFAULT_MIME_ALLOW_LIST),
    ).toBe(true);
    for (const m of ['application/x-msdownload', 'text/html', 'image/svg+xml', 'application/x-elf'])
      expect(mimeAllowed(m, DEFAULT_MIME_ALLOW_LIST)).toBe(false);
  });
});
