import type { SiteDoc } from '../site.projections';

/**
 * How every published site looks: one fixed appearance (the service has no per-site customization).
 * The stylesheet (site-html.css.ts) is written from these values, and `GET …/published` describes
 * them in the platform's customization settings, so the description cannot drift from the site.
 */
export const SITE_APPEARANCE = {
  /** Links, buttons, focus rings and informational hints. */
  primaryColor: '#0b57d0',
  infoColor: '#0b57d0',
  successColor: '#1a7f37',
  warningColor: '#9a6700',
  dangerColor: '#cf222e',
  /** The text font and the code font, asked for by name first (not served: readers without them get the system's). */
  font: { platform: 'Inter', css: 'Inter' },
  monospaceFont: { platform: 'FiraCode', css: '"Fira Code"' },
} as const;

const sameInEveryMode = (color: string) => ({ light: color, dark: color });

/**
 * The published site's appearance as the platform's customization settings: its colors and fonts,
 * one light theme (no dark mode, so dark values are the light ones), plain code blocks
 * (monochrome), and none of the platform's extras (no header links, footer, feedback, AI,
 * pagination, page actions, trademark, social accounts, tracking cookie, favicon).
 */
export function publishedCustomization(site: Pick<SiteDoc, 'title'>) {
  const code = { light: 'monochrome-light', dark: 'monochrome-light' } as const;
  return {
    title: site.title,
    styling: {
      theme: 'clean' as const,
      primaryColor: sameInEveryMode(SITE_APPEARANCE.primaryColor),
      infoColor: sameInEveryMode(SITE_APPEARANCE.infoColor),
      successColor: sameInEveryMode(SITE_APPEARANCE.successColor),
      warningColor: sameInEveryMode(SITE_APPEARANCE.warningColor),
      dangerColor: sameInEveryMode(SITE_APPEARANCE.dangerColor),
      corners: 'rounded' as const,
      depth: 'flat' as const,
      links: 'default' as const,
      font: SITE_APPEARANCE.font.platform,
      monospaceFont: SITE_APPEARANCE.monospaceFont.platform,
      codeTheme: { default: code, openapi: code },
      background: 'plain' as const,
      icons: 'regular' as const,
      sidebar: { background: 'default' as const, list: 'default' as const },
      search: 'subtle' as const,
    },
    internationalization: { locale: 'en' as const },
    favicon: {},
    header: { preset: 'default' as const, links: [] },
    footer: { groups: [] },
    themes: { default: 'light' as const, toggeable: false },
    feedback: { enabled: false },
    ai: { mode: 'none' as const },
    advancedCustomization: { enabled: false },
    trademark: { enabled: false },
    externalLinks: { target: 'self' as const },
    pagination: { enabled: false },
    pageActions: { items: [] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: false },
  };
}
