// Every model name the builder and the detail page offer, in their order: what the pages' tests
// expect of the model select, written out so a change to the table shows in them.
export const MODEL_TABLE = ['gpt-4-turbo', 'gpt-4', 'claude-3-opus', 'claude-3-sonnet', 'claude-3-haiku', 'gemini-pro', 'gpt4', 'claude3', 'gemini', 'mixtral'];
