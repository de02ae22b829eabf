// course-view.mjs - the course around the task (course.mjs): the list of
// links at the foot of the page and the next step an Accepted verdict
// points to. DOM only.

import { h } from './dom.mjs';

/* Fills the list with the course's links; an empty course hides it. */
export function renderCourseLinks(list, course) {
  list.replaceChildren(...course.links.map((link) => {
    const label = link.url ? h('a', { href: link.url }, link.title) : h('span', {}, link.title);
    if (link.current) label.setAttribute('aria-current', 'page');
    return h('li', { className: link.current ? 'current' : null }, label,
      link.current ? h('span', { className: 'task-here' }, 'this task') : null);
  }));
  list.hidden = course.links.length === 0;
}

/* "Next step: <link>" or "Next step: <words>", from course.mjs's nextStep. */
export function nextStepParagraph(step) {
  return h('p', { className: 'next-step' }, h('strong', {}, 'Next step: '),
    step.link ? h('a', { href: step.link.url }, step.link.title) : step.text,
    step.link ? null : h('span', {}, ' Meanwhile, ', h('a', { href: '#elsewhere' }, 'see how other platforms write the butterfly'), '.'));
}
