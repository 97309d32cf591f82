// Sign in and register: one <form> each, with the autocomplete names password
// managers look for. The password goes to the server once and is never kept.

import { h } from "./dom.js";

/** `submit({register, name, password})` resolves, or rejects with an error to show. */
export function signInScreen(container, { register, submit, notice, joinCode }) {
  const error = h("p", { class: "form-error", role: "alert", hidden: true });
  const name = h("input", { id: "auth-name", name: "username", autocomplete: "username", required: true,
    autocapitalize: "none", spellcheck: "false", minlength: 2, maxlength: 32 });
  const password = h("input", { id: "auth-password", name: "password", type: "password", required: true,
    autocomplete: register ? "new-password" : "current-password", minlength: register ? 15 : 1, maxlength: 1024 });
  const button = h("button", { type: "submit", class: "primary" }, register ? "Create account" : "Sign in");
  const form = h("form", { class: "auth-form", novalidate: false },
    h("label", { for: "auth-name" }, "Name"), name,
    register ? h("p", { class: "hint" }, "2–32 lower-case letters, digits, dots, dashes or underscores.") : null,
    h("label", { for: "auth-password" }, "Password"), password,
    register ? h("p", { class: "hint" }, "At least 15 characters: a few words make a good one.") : null,
    error, button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.hidden = true;
    button.disabled = true;
    try {
      await submit({ register, name: name.value.trim().toLowerCase(), password: password.value });
    } catch (failure) {
      error.textContent = failure && failure.message ? failure.message : String(failure);
      error.hidden = false;
      button.disabled = false;
      password.focus();
    }
  });
  const root = h("section", { class: "auth", "data-screen": register ? "register" : "signin" },
    h("h2", {}, register ? "Create your account" : "Sign in"),
    notice ? h("p", { class: "notice", role: "status" }, notice) : null,
    joinCode ? h("p", { class: "notice" }, `You will join the household of invite code ${joinCode}.`) : null,
    form,
    register
      ? h("p", {}, "Have an account? ", h("a", { href: "#/signin" }, "Sign in"))
      : h("p", {}, "New here? ", h("a", { href: "#/register" }, "Create an account")));
  container.replaceChildren(root);
  name.focus();
  return { destroy() {} };
}
