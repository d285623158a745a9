export { messagesFor, type Messages } from '../i18n/messages.js';
