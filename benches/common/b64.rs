//! Standard padded base64 (RFC 4648, section 4), the encoding of `pane.input`'s
//! and `pty.data`'s `data_b64`: enough of it for the benchmarks, without a
//! dependency.

use super::Res;

/// The 64 characters, in value order.
pub const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `data` in base64, padded.
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn value(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// Appends the bytes `text` (padded base64) encodes to `out`.
pub fn decode_into(text: &str, out: &mut Vec<u8>) -> Res<()> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err(format!("base64 of {} characters", bytes.len()));
    }
    let bad = || format!("not base64: {text:.40}");
    for quad in bytes.chunks(4) {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return Err(bad());
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            n = (n << 6) | value(c).ok_or_else(bad)?;
        }
        n <<= 6 * pad as u32;
        let three = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&three[..3 - pad]);
    }
    Ok(())
}

/// How many bytes the padded base64 `text` encodes, without decoding it.
pub fn decoded_len(text: &str) -> usize {
    let pad = text.bytes().rev().take_while(|&c| c == b'=').count().min(2);
    (text.len() / 4 * 3).saturating_sub(pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_padding() {
        for data in [&b""[..], b"f", b"fo", b"foo", b"foob", b"<00000001>\r"] {
            let text = encode(data);
            let mut back = Vec::new();
            assert_eq!(decode_into(&text, &mut back), Ok(()));
            assert_eq!(back, data);
            assert_eq!(decoded_len(&text), data.len());
        }
        assert_eq!(encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(encode(b"fooba"), "Zm9vYmE=");
        assert!(decode_into("Zm9=v", &mut Vec::new()).is_err());
    }
}
