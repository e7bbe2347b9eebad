// Content blocks carried by agent messages (pi's content model). Schemas are loose so that
// unknown provider fields survive an import/export round trip untouched.
import { z } from 'zod';

export const textContentSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
});

export const imageContentSchema = z.looseObject({
  type: z.literal('image'),
  data: z.string(),
  mimeType: z.string(),
});

export const thinkingContentSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
});

export const toolCallSchema = z.looseObject({
  type: z.literal('toolCall'),
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});

export const userContentSchema = z.union([
  z.string(),
  z.array(z.union([textContentSchema, imageContentSchema])),
]);
export const assistantContentSchema = z.array(
  z.discriminatedUnion('type', [textContentSchema, thinkingContentSchema, toolCallSchema]),
);
export const toolResultContentSchema = z.array(z.union([textContentSchema, imageContentSchema]));

export type TextContent = z.infer<typeof textContentSchema>;
export type ImageContent = z.infer<typeof imageContentSchema>;
export type ThinkingContent = z.infer<typeof thinkingContentSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type UserContent = z.infer<typeof userContentSchema>;
export type AssistantContent = z.infer<typeof assistantContentSchema>;
export type ToolResultContent = z.infer<typeof toolResultContentSchema>;
