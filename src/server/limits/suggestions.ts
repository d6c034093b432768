// Field suggestions in error messages ("Did you mean …?") tell a stranger the names in a
// schema whose introspection is closed. graphql-js appends them at the end of a message
// (validation and variable coercion alike); this removes them when an app turns them off.

const SUGGESTION = /\s*Did you mean [^?]*\?/g;

export function withoutSuggestions(message: string): string {
  return message.replace(SUGGESTION, '');
}
