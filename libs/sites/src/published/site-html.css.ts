import { SITE_APPEARANCE } from './site-html.appearance';

/**
 * The published site's stylesheet, served by the site's own route (`{base}/~site.css`), so the
 * Content-Security-Policy allows styles from the site itself only. Colors keep a contrast of at
 * least 4.5:1; links in text are underlined. Its colors and fonts are the site's appearance
 * (site-html.appearance.ts), which `GET …/published` describes.
 */
const { primaryColor, infoColor, successColor, warningColor, dangerColor, font, monospaceFont } = SITE_APPEARANCE;

export const SITE_STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
html { font-family: ${font.css}, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; line-height: 1.6; }
body { margin: 0; }
a { color: ${primaryColor}; }
a:focus-visible, button:focus-visible, input:focus-visible, summary:focus-visible { outline: 3px solid ${primaryColor}; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.site-header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid #d0d7de; }
.site-title { font-weight: 700; font-size: 1.2rem; text-decoration: none; color: #1f2328; }
.sections ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.sections .group > span { font-weight: 600; }
.sections .group ul { display: inline-flex; margin-left: .5rem; }
.sections a[aria-current="page"], .pages a[aria-current="page"] { font-weight: 700; color: #1f2328; }
.search { margin-left: auto; display: flex; gap: .5rem; align-items: center; }
.search input { padding: .3rem .5rem; border: 1px solid #59636e; border-radius: 4px; font: inherit; }
.search button { padding: .3rem .75rem; border: 1px solid ${primaryColor}; background: ${primaryColor}; color: #fff; border-radius: 4px; font: inherit; }
.layout { display: flex; gap: 2rem; padding: 1.5rem; max-width: 80rem; margin: 0 auto; }
.pages { flex: 0 0 16rem; }
.pages ul { list-style: none; margin: 0; padding-left: 1rem; }
.pages > ul { padding-left: 0; }
.pages a { text-decoration: none; }
.pages .group { font-weight: 600; color: #59636e; display: block; margin-top: .75rem; }
.nav-label { font-weight: 600; color: #59636e; margin: 0; }
.variants { margin-bottom: 1rem !important; }
main { flex: 1 1 auto; min-width: 0; }
main a { text-decoration: underline; }
.anchor { margin-left: .4rem; color: #59636e; text-decoration: none !important; font-weight: 400; }
.description { color: #59636e; font-size: 1.1rem; }
pre { background: #f6f8fa; padding: .75rem 1rem; overflow-x: auto; border-radius: 6px; }
code { font-family: ${monospaceFont.css}, ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
.hint { border-left: 4px solid ${infoColor}; background: #eef4ff; padding: .5rem 1rem; margin: 1rem 0; }
.hint-warning { border-color: ${warningColor}; background: #fff8c5; }
.hint-danger { border-color: ${dangerColor}; background: #ffebe9; }
.hint-success { border-color: ${successColor}; background: #dafbe1; }
blockquote { border-left: 4px solid #d0d7de; margin: 1rem 0; padding: 0 1rem; color: #424a53; }
.table { overflow-x: auto; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: .4rem .75rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
figure { margin: 1rem 0; }
img { max-width: 100%; height: auto; }
figcaption { color: #59636e; font-size: .9rem; }
details { border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem 1rem; margin: .75rem 0; }
summary { cursor: pointer; font-weight: 600; }
.tasks { list-style: none; padding-left: 1rem; }
.columns { display: flex; gap: 1.5rem; flex-wrap: wrap; }
.column { flex: 1 1 14rem; }
mark { background: #fff8c5; color: inherit; }
.results li { margin-bottom: 1rem; }
@media (max-width: 48rem) { .layout { flex-direction: column; } .pages { flex: none; } }
`;
