//! Compressed inputs: a file that begins with a Zstandard frame (what `sjlint archive` writes,
//! or `zstd` on the command line) is read through a decoder, whatever its name; every frame of
//! it in turn, so that a copy grown by appended frames reads as one stream.
//!
//! This module owns telling such a file by its first bytes and opening its decoder. It must not
//! decide where inputs come from nor how they are checked.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// The first four bytes of every Zstandard frame.
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Whether the regular file `file` begins with a Zstandard frame. Reads its first bytes and
/// puts its offset back at the start. A FIFO or a device is never one (it cannot be read again).
pub fn is_zstd(file: &File) -> io::Result<bool> {
    if !file.metadata()?.is_file() {
        return Ok(false);
    }
    let mut file = file;
    let mut head = [0; 4];
    let got = read_full(&mut file, &mut head)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(got == head.len() && head == ZSTD_MAGIC)
}

/// Reads until `buf` is full or the input ends: how many bytes it holds.
pub fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The bytes `file` holds compressed, as they are read. A frame that does not decode is an
/// error of the reading (`InvalidData`), with what was decoded before it already read.
pub fn decoder(file: File) -> io::Result<Box<dyn Read + Send>> {
    Ok(Box::new(zstd::stream::read::Decoder::new(file)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn appended_frames_read_as_one_stream_and_plain_files_are_not_taken() {
        let dir = std::env::temp_dir().join(format!("sjlint-zst-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log.jsonl.zst");
        let mut out = File::create(&path).unwrap();
        out.write_all(&zstd::encode_all(&b"{\"a\":1}\n"[..], 3).unwrap())
            .unwrap();
        out.write_all(&zstd::encode_all(&b"{\"b\":2}\n"[..], 3).unwrap())
            .unwrap();
        drop(out);
        let f = File::open(&path).unwrap();
        assert!(is_zstd(&f).unwrap());
        let mut text = String::new();
        decoder(f).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "{\"a\":1}\n{\"b\":2}\n");
        let plain = dir.join("log.jsonl");
        std::fs::write(&plain, "{\"a\":1}\n").unwrap();
        assert!(!is_zstd(&File::open(&plain).unwrap()).unwrap());
        let short = dir.join("short");
        std::fs::write(&short, [0x28, 0xB5]).unwrap();
        assert!(!is_zstd(&File::open(&short).unwrap()).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
