//! Where this notebook explains each kind of finding: `kernlog analyze` links every finding
//! to a section of the site given by `--site` (the MacBook Pro resume notebook by default).

use kernlog::analysis::findings::FindingKind;

/// The site-relative address of the section that explains `kind`; none for a kind newer
/// than this notebook (the library's list of kinds can grow).
pub fn page(kind: FindingKind) -> Option<&'static str> {
    Some(match kind {
        FindingKind::SlowCpuBringup => "/journey#finding-the-problematic-code-path",
        FindingKind::MtrrBootCpuRestored => "/journey#changes-after-resume",
        FindingKind::MtrrApsInconsistent => "/journey#split-of-resume-changes",
        FindingKind::MtrrResumeDiagnostic => "/journey#add-diagnostic",
        FindingKind::EcWakeGap => "/related/t2-macs#the-wake-to-ec-gap",
        FindingKind::CpuNotUp => "/checklist#cpus-that-did-not-come-back",
        _ => return None,
    })
}

/// The links of a site: `SITE/page`, or none when `site` is empty.
pub fn links(site: &str) -> impl Fn(FindingKind) -> Option<String> + '_ {
    let site = site.trim_end_matches('/');
    move |kind| {
        let page = page(kind)?;
        (!site.is_empty()).then(|| format!("{site}{page}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_section_and_an_empty_site_gives_no_link() {
        for kind in FindingKind::ALL {
            let page = page(kind).unwrap_or_default();
            assert!(page.starts_with('/') && page.contains('#'), "{kind:?}");
        }
        let site = links("https://example.org/");
        assert_eq!(
            site(FindingKind::EcWakeGap).as_deref(),
            Some("https://example.org/related/t2-macs#the-wake-to-ec-gap")
        );
        assert_eq!(links("")(FindingKind::CpuNotUp), None);
    }
}
