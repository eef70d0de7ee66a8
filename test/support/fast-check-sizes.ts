/**
 * Property tests generate up to the bounds they name: fast-check otherwise keeps a value's size
 * "small" (about ten elements or characters) whatever `maxLength` says, so a property written for
 * 90 entries, a 200-character name or a 300-byte output never met one past the page, the length
 * limit or the cut it was written to cross.
 */
import fc from "fast-check";

fc.configureGlobal({ defaultSizeToMaxWhenMaxSpecified: true });
