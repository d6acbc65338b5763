// Dify's GET /parameters for a Tollbooth app: the input form (user_input_form) built from a prompt
// app's input schema, or a workflow app's own form as its provider reported it, with the upload
// settings Tollbooth accepts.
import { detectVariables, type IoSchema } from '@tollbooth/contract';
import { ALLOWED_UPLOADS, MAX_UPLOAD_BYTES } from '../gateway/service.ts';
import type { InputFormEntry } from '../providers/workflows/types.ts';

/** A string input longer than this (or unbounded) is a paragraph, shorter a text-input. */
const TEXT_INPUT_MAX = 256;

type FormField = { label: string; variable: string; required: boolean; default: unknown; options?: string[]; max_length?: number; description?: string };

/**
 * One Dify form entry per property: text-input, paragraph, select, number, checkbox or json_object.
 * Stored schemas do not keep their key order, so the form follows the template: its variables in
 * order of appearance, then the other inputs by name.
 */
export function inputFormFromSchema(schema: IoSchema, template = ''): InputFormEntry[] {
  const required = new Set(schema.required ?? []);
  const inTemplate = detectVariables(template);
  const position = (name: string) => (inTemplate.includes(name) ? inTemplate.indexOf(name) : inTemplate.length);
  const entries = Object.entries(schema.properties).sort(([a], [b]) => position(a) - position(b) || (a < b ? -1 : a > b ? 1 : 0));
  return entries.map(([variable, property]): InputFormEntry => {
    const title = (property as { title?: unknown }).title;
    const field: FormField = {
      label: typeof title === 'string' && title ? title : variable,
      variable,
      required: required.has(variable),
      default: property.default ?? '',
      ...(property.description ? { description: property.description } : {}),
    };
    if (Array.isArray(property.enum) && property.enum.length > 0) return { select: { ...field, options: property.enum.map(String) } };
    switch (property.type) {
      case 'string':
        if (typeof property.maxLength === 'number' && property.maxLength <= TEXT_INPUT_MAX)
          return { 'text-input': { ...field, max_length: property.maxLength } };
        return { paragraph: { ...field, ...(typeof property.maxLength === 'number' ? { max_length: property.maxLength } : {}) } };
      case 'number':
      case 'integer':
        return { number: field };
      case 'boolean':
        return { checkbox: { ...field, default: property.default ?? false } };
      default:
        return { json_object: field };
    }
  });
}

const disabled = { enabled: false };

/** The full GET /parameters answer around a form. */
export function parametersAnswer(form: InputFormEntry[], options: { imagesOnly: boolean }) {
  const extensions = Object.entries(ALLOWED_UPLOADS)
    .filter(([, mime]) => !options.imagesOnly || mime.startsWith('image/'))
    .map(([extension]) => `.${extension}`);
  const sizeMb = MAX_UPLOAD_BYTES / 1024 / 1024;
  return {
    opening_statement: '',
    suggested_questions: [],
    suggested_questions_after_answer: disabled,
    speech_to_text: disabled,
    text_to_speech: disabled,
    retriever_resource: disabled,
    annotation_reply: disabled,
    more_like_this: disabled,
    sensitive_word_avoidance: disabled,
    user_input_form: form,
    file_upload: {
      enabled: true,
      allowed_file_types: options.imagesOnly ? ['image'] : ['image', 'document'],
      allowed_file_extensions: extensions,
      allowed_file_upload_methods: options.imagesOnly ? ['local_file'] : ['local_file', 'remote_url'],
      number_limits: 10,
      image: { enabled: true, number_limits: 10, detail: 'high', transfer_methods: options.imagesOnly ? ['local_file'] : ['local_file', 'remote_url'] },
    },
    system_parameters: {
      file_size_limit: sizeMb,
      image_file_size_limit: sizeMb,
      audio_file_size_limit: 0,
      video_file_size_limit: 0,
      workflow_file_upload_limit: 10,
    },
  };
}
