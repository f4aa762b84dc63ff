const MAX_SLUG_LENGTH = 255;

/**
 * A kebab-case slug from free text: accents dropped, lower case, runs of anything other than
 * letters and digits become one hyphen. Empty when the text has no ASCII letter or digit.
 */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
}

/** A person's default slug: from the name, else the email's local part, else `person`. */
export function personSlug(name: string, email: string): string {
  return slugify(name) || slugify(email.slice(0, email.lastIndexOf('@'))) || 'person';
}
