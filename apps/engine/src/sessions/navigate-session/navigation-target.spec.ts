import { session } from '@strata/testing';
import { navigationTarget } from './navigation-target';

describe('where navigation lands (reference §6.4 step 5)', () => {
  const entries = session()
    .user([
      { type: 'text', text: 'Edit ' },
      { type: 'text', text: 'this' },
    ])
    .assistant('ok')
    .customMessage('note', 'A custom note')
    .assistant('fine').entries;
  const [user, assistant, custom] = entries;

  it('puts the leaf on the parent of a user message and hands back its text', () => {
    expect(navigationTarget(user!)).toEqual({ newLeafId: null, editorText: 'Edit this' });
  });

  it('does the same for a custom message', () => {
    expect(navigationTarget(custom!)).toEqual({ newLeafId: assistant!.id, editorText: 'A custom note' });
  });

  it('puts the leaf on any other target itself', () => {
    expect(navigationTarget(assistant!)).toEqual({ newLeafId: assistant!.id });
  });
});
