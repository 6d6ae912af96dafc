/**
 * E-mail addresses compare case-insensitively. Shared kernel rather than identity's: organizations
 * match invitations by address with the same rule, and contexts share code only through the kernel.
 */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
