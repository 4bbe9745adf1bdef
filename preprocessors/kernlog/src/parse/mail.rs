//! Reading a log inside a mail saved whole (an mbox message): which parts are
//! quoted-printable, and where a line ends in a soft break. Pure functions on one line's
//! bytes; [`crate::parse::reader::RecordReader`] does the joining and decoding.

/// What a mail line says about the encoding of the lines after it: `Some(true)` for a
/// `Content-Transfer-Encoding: quoted-printable` header, `Some(false)` for another encoding
/// or the `From ` line that starts the next message of an mbox, `None` for any other line.
pub fn encoding_switch(line: &[u8]) -> Option<bool> {
    const HEADER: &[u8] = b"content-transfer-encoding:";
    // Most lines start with a stamp: one byte decides.
    match line.first()? {
        b'F' if line.starts_with(b"From ") => return Some(false),
        b'C' | b'c' => {}
        _ => return None,
    }
    let name = line.get(..HEADER.len())?;
    if !name.eq_ignore_ascii_case(HEADER) {
        return None;
    }
    let value = line[HEADER.len()..].trim_ascii();
    Some(value.eq_ignore_ascii_case(b"quoted-printable"))
}

/// In a quoted-printable body, a line ending in `=` (trailing blanks aside) continues on
/// the next line: the length of what to keep, without the `=`, or `None` for a hard break.
pub fn soft_break(line: &[u8]) -> Option<usize> {
    let text = line.trim_ascii_end();
    text.strip_suffix(b"=").map(<[u8]>::len)
}

/// A decoded quoted-printable line as text bytes: kept when it is UTF-8, else read as
/// Latin-1 (ISO 8859-1, the other charset such mails declare), one character per byte.
pub fn utf8_or_latin1(decoded: Vec<u8>) -> Vec<u8> {
    match String::from_utf8(decoded) {
        Ok(text) => text.into_bytes(),
        Err(e) => e
            .into_bytes()
            .iter()
            .map(|&b| char::from(b))
            .collect::<String>()
            .into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_switch_the_decoding() {
        let on = b"Content-Transfer-Encoding: quoted-printable";
        assert_eq!(encoding_switch(on), Some(true));
        let lower = b"content-transfer-encoding:   Quoted-Printable  ";
        assert_eq!(encoding_switch(lower), Some(true));
        assert_eq!(
            encoding_switch(b"Content-Transfer-Encoding: 8bit"),
            Some(false)
        );
        assert_eq!(
            encoding_switch(b"From bot@kernelci.org Wed Feb 23 2022"),
            Some(false)
        );
        assert_eq!(
            encoding_switch(b"> Content-Transfer-Encoding: quoted-printable"),
            None
        );
        assert_eq!(
            encoding_switch(b"[   96.726207] PM: suspend entry (deep)"),
            None
        );
        assert_eq!(encoding_switch(b"Content"), None);
    }

    #[test]
    fn latin1_when_not_utf8() {
        assert_eq!(
            utf8_or_latin1(b"[\xa0\xa0 75.5]".to_vec()),
            "[\u{a0}\u{a0} 75.5]".as_bytes()
        );
        assert_eq!(
            utf8_or_latin1("\u{2713}".as_bytes().to_vec()),
            "\u{2713}".as_bytes()
        );
    }

    #[test]
    fn soft_breaks() {
        assert_eq!(soft_break(b"Filesystems sync: 0.000 s="), Some(25));
        assert_eq!(soft_break(b"sses ... = "), Some(9));
        assert_eq!(soft_break(b"="), Some(0));
        assert_eq!(soft_break(b"wq_busy=3D0):"), None);
        assert_eq!(soft_break(b""), None);
    }
}
